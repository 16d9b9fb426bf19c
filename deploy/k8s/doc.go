// Package k8s holds no code: it is the Kubernetes manifests (kubectl apply
// -k deploy/k8s) and the test that decodes each strictly into the
// Kubernetes API types and checks what a rollout depends on: the grace
// period covers the drain, the probes reach /readyz and /healthz on the
// server's port, and secrets reach wecodex only as files.
package k8s
