// Package deploy holds no code: it is the Docker Compose file, the systemd
// unit and the config they start wecodex with, and the tests that check
// them as far as this machine can (the compose file parses and describes
// two replicas on one Redis, the config validates, the unit passes
// systemd-analyze verify when it is installed, and the README's systemd
// path runs top to bottom against a temporary root).
package deploy
