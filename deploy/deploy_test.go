package deploy

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/wecodex/wecodex/configs"
	"github.com/wecodex/wecodex/internal/testenv"
)

type composeFile struct {
	Services map[string]struct {
		Image       string            `yaml:"image"`
		Build       string            `yaml:"build"`
		Ports       []string          `yaml:"ports"`
		Volumes     []string          `yaml:"volumes"`
		Environment map[string]string `yaml:"environment"`
		Secrets     []string          `yaml:"secrets"`
		Configs     []any             `yaml:"configs"`
		DependsOn   map[string]struct {
			Condition string `yaml:"condition"`
		} `yaml:"depends_on"`
	} `yaml:"services"`
	Name    string         `yaml:"name"`
	Configs map[string]any `yaml:"configs"`
	Secrets map[string]struct {
		File string `yaml:"file"`
	} `yaml:"secrets"`
}

// deploySecrets are the secrets the deployment hands wecodex, as files:
// Compose's secret (and systemd's credential) name, and the variable of
// the _file key that points wecodex at it.
var deploySecrets = map[string]string{
	"wecom_aibot_token":            "WECODEX_WECOM_AIBOT_TOKEN_FILE",
	"wecom_aibot_encoding_aes_key": "WECODEX_WECOM_AIBOT_ENCODING_AES_KEY_FILE",
}

// No container engine runs here, so the compose file is checked by reading
// it: two wecodex replicas with volumes of their own, on one Redis they wait
// for, fed deploy/wecodex.yaml. (The YAML merge key is resolved by the
// parser as Compose resolves it.)
func TestComposeRunsTwoReplicasOnOneRedis(t *testing.T) {
	raw, err := os.ReadFile("docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	if err := yaml.Unmarshal(raw, &c); err != nil {
		t.Fatalf("docker-compose.yml does not parse: %v", err)
	}
	var names []string
	for n := range c.Services {
		names = append(names, n)
	}
	slices.Sort(names)
	if want := []string{"redis", "wecodex-1", "wecodex-2"}; !slices.Equal(names, want) {
		t.Fatalf("services %q, want %q", names, want)
	}
	if c.Services["redis"].Image != "redis:7-alpine" {
		t.Errorf("redis image %q, want redis:7-alpine", c.Services["redis"].Image)
	}
	volumes := map[string]bool{}
	for _, n := range []string{"wecodex-1", "wecodex-2"} {
		s := c.Services[n]
		if s.Image != "wecodex:latest" || s.Build != ".." {
			t.Errorf("%s: image %q build %q, want wecodex:latest built from ..", n, s.Image, s.Build)
		}
		if s.DependsOn["redis"].Condition != "service_healthy" {
			t.Errorf("%s: depends_on redis %+v, want condition service_healthy", n, s.DependsOn)
		}
		if len(s.Configs) != 0 {
			t.Errorf("%s: configs %+v: Compose v1 ignores them outside a swarm; bind-mount the file", n, s.Configs)
		}
		// Secrets come as files; the environment only says where.
		want := map[string]string{"WECODEX_REDIS_ADDR": "redis:6379"}
		for name, env := range deploySecrets {
			want[env] = "/run/secrets/" + name
		}
		if !maps.Equal(s.Environment, want) {
			t.Errorf("%s: environment %q, want only the compose Redis and the _file keys %q", n, s.Environment, want)
		}
		if got := slices.Sorted(slices.Values(s.Secrets)); !slices.Equal(got, slices.Sorted(maps.Keys(deploySecrets))) {
			t.Errorf("%s: secrets %q, want %q", n, got, slices.Sorted(maps.Keys(deploySecrets)))
		}
		if len(s.Volumes) != 2 || s.Volumes[0] != "./wecodex.yaml:/etc/wecodex/wecodex.yaml:ro" ||
			!strings.HasSuffix(s.Volumes[1], ":/var/lib/wecodex") || volumes[s.Volumes[1]] {
			t.Errorf("%s: volumes %q, want ./wecodex.yaml read-only at /etc/wecodex/wecodex.yaml and one of its own at /var/lib/wecodex", n, s.Volumes)
		}
		volumes[s.Volumes[1]] = true
	}
	for name := range deploySecrets {
		if c.Secrets[name].File != "./secrets/"+name {
			t.Errorf("secret %s: file %q, want ./secrets/%s", name, c.Secrets[name].File, name)
		}
	}
	if c.Name != "" || len(c.Configs) != 0 {
		t.Errorf("top-level name %q, configs %v: Compose v1 rejects the first and ignores the second", c.Name, c.Configs)
	}
}

// Where a Compose is installed, it must accept the file as it is (v2's
// `docker compose config` and v1's `docker-compose config` need no daemon).
func TestComposeConfigAccepts(t *testing.T) {
	var tried bool
	for _, argv := range [][]string{{"docker", "compose"}, {"docker-compose"}} {
		if _, err := exec.LookPath(argv[0]); err != nil {
			continue
		}
		if exec.Command(argv[0], append(argv[1:], "version")...).Run() != nil {
			continue // a docker client without the compose plugin
		}
		args := append(argv[1:], "-p", "wecodex", "-f", "docker-compose.yml", "config", "--quiet")
		cmd := exec.Command(argv[0], args...)
		cmd.Dir = copyWithSecrets(t)
		out, err := cmd.CombinedOutput()
		tried = true
		if err != nil || len(out) != 0 {
			t.Errorf("%s config: %v\n%s", strings.Join(argv, " "), err, out)
		}
	}
	if !tried {
		t.Skip("neither docker compose nor docker-compose is installed")
	}
}

// copyWithSecrets copies the compose file to a directory beside made-up
// secret files, as an admin lays them out, and returns the directory.
func copyWithSecrets(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	raw, err := os.ReadFile("docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "docker-compose.yml"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	writeSecrets(t, filepath.Join(dir, "secrets"))
	return dir
}

// writeSecrets writes a made-up file for each deploy secret into dir and
// returns their paths by secret name.
func writeSecrets(t *testing.T, dir string) map[string]string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	values := map[string]string{
		"wecom_aibot_token":            "deployTestToken\n",
		"wecom_aibot_encoding_aes_key": "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8",
	}
	paths := map[string]string{}
	for name := range deploySecrets {
		paths[name] = filepath.Join(dir, name)
		if err := os.WriteFile(paths[name], []byte(values[name]), 0o400); err != nil {
			t.Fatal(err)
		}
	}
	return paths
}

// The config the deployment ships validates once the compose file's and the
// unit's _file variables point at the secret files, holds no secret of its
// own, and names the machine's Redis (the unit's; the compose file sets its
// own).
func TestDeployConfigValidates(t *testing.T) {
	for name, path := range writeSecrets(t, t.TempDir()) {
		t.Setenv(deploySecrets[name], path)
	}
	cfg, warns, err := configs.Check("wecodex.yaml")
	if err != nil || len(warns) != 0 {
		t.Fatalf("deploy/wecodex.yaml: %v, warnings %v", err, warns)
	}
	if cfg.WeCom.AIBot.Token != "deployTestToken" || cfg.WeCom.AIBot.EncodingAESKey != "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8" {
		t.Errorf("token %q, key %q: want the files' contents", cfg.WeCom.AIBot.Token, cfg.WeCom.AIBot.EncodingAESKey)
	}
	if cfg.Redis.Addr != "127.0.0.1:6379" || cfg.Metrics.Addr != ":9090" || cfg.Metrics.Pprof {
		t.Errorf("redis.addr %q metrics %+v, want the machine's 127.0.0.1:6379 and an internal :9090 without pprof", cfg.Redis.Addr, cfg.Metrics)
	}
}

// The image installs the Codex the tests ran (the Makefile's CODEX_VERSION).
func TestImagePinsTheTestedCodex(t *testing.T) {
	mk, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	df, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(`(?m)^CODEX_VERSION\s*:=\s*(\S+)$`).FindSubmatch(mk)
	got := regexp.MustCompile(`(?m)^ARG CODEX_VERSION=(\S+)$`).FindSubmatch(df)
	if want == nil || got == nil || string(got[1]) != string(want[1]) {
		t.Fatalf("Dockerfile CODEX_VERSION %q, Makefile %q: want the same", got, want)
	}
}

// The unit hands each secret over as a credential and points its _file key
// into the credentials directory; no line sets a secret or reads an
// environment file.
func TestSystemdUnitPassesSecretsAsCredentials(t *testing.T) {
	unit, err := os.ReadFile("wecodex.service")
	if err != nil {
		t.Fatal(err)
	}
	var creds, envs []string
	for _, line := range strings.Split(string(unit), "\n") {
		switch {
		case strings.HasPrefix(line, "LoadCredential="):
			creds = append(creds, strings.TrimPrefix(line, "LoadCredential="))
		case strings.HasPrefix(line, "Environment=WECODEX_") && strings.Contains(line, "_FILE="):
			envs = append(envs, strings.TrimPrefix(line, "Environment="))
		case strings.HasPrefix(line, "EnvironmentFile="):
			t.Errorf("%s: secrets are credentials, not an environment file", line)
		}
	}
	var wantCreds, wantEnvs []string
	for _, name := range slices.Sorted(maps.Keys(deploySecrets)) {
		wantCreds = append(wantCreds, name+":/etc/wecodex/secrets/"+name)
		wantEnvs = append(wantEnvs, deploySecrets[name]+"=%d/"+name)
	}
	slices.Sort(creds)
	slices.Sort(envs)
	if !slices.Equal(creds, wantCreds) || !slices.Equal(envs, wantEnvs) {
		t.Errorf("LoadCredential= %q, want %q\n_FILE variables %q, want %q", creds, wantCreds, envs, wantEnvs)
	}
}

// systemd-analyze verify checks the unit's syntax and that ExecStart runs;
// the binary is built here, since /usr/local/bin/wecodex is not installed.
func TestSystemdUnitVerifies(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed")
	}
	dir := t.TempDir()
	bin, err := testenv.BuildWecodex(dir)
	if err != nil {
		t.Fatal(err)
	}
	unit, err := os.ReadFile("wecodex.service")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(unit), "ExecStart=/usr/local/bin/wecodex", "ExecStart="+bin)
	if text == string(unit) {
		t.Fatal("wecodex.service has no ExecStart=/usr/local/bin/wecodex")
	}
	path := filepath.Join(dir, "wecodex.service")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", path).CombinedOutput()
	if err != nil || len(out) != 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}
