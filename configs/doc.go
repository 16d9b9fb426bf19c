// Package configs owns wecodex's YAML configuration: the files an admin copies
// (wecodex.example.yaml documents every key, wecodex.yaml is the local default),
// Load, which reads a file with viper and lets a WECODEX_* environment variable
// override any key, and Validate, which reports every problem at once, each
// naming the full key and what to do about it.
package configs
