package k8s

import (
	"maps"
	"os"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"
)

// requeueAllowance is what the README's "Rolling a deploy" asks on top of
// server.drain_timeout: cancelling and re-queueing what still runs takes
// up to about 30 s when Codex or Redis is slow.
const requeueAllowance = 30 * time.Second

// The kubelet counts the preStop hook inside the grace period, so the
// grace period must cover the sleep, the whole drain and the re-queueing,
// or a SIGKILL cuts the drain and its turns are lost.
func TestGracePeriodCoversPreStopAndDrain(t *testing.T) {
	m := load(t)
	cfg := m.config(t)
	srv := m.server(t)
	if srv.Lifecycle == nil || srv.Lifecycle.PreStop == nil || srv.Lifecycle.PreStop.Exec == nil {
		t.Fatalf("the server container has no exec preStop: %+v", srv.Lifecycle)
	}
	cmd := srv.Lifecycle.PreStop.Exec.Command
	if len(cmd) != 2 || cmd[0] != "sleep" {
		t.Fatalf("preStop %q, want [sleep N]: SIGTERM (sent after it) starts the drain, and a second SIGTERM would skip it", cmd)
	}
	sleep, err := strconv.Atoi(cmd[1])
	if err != nil || sleep < 5 {
		t.Fatalf("preStop sleeps %q, want at least 5 s for the endpoints to follow", cmd[1])
	}
	grace := m.deployment.Spec.Template.Spec.TerminationGracePeriodSeconds
	need := time.Duration(sleep)*time.Second + cfg.Server.DrainTimeout + requeueAllowance
	if grace == nil {
		t.Fatalf("no terminationGracePeriodSeconds: Kubernetes' 30 s would cut the drain short, want at least %s", need)
	}
	if got := time.Duration(*grace) * time.Second; got < need {
		t.Fatalf("terminationGracePeriodSeconds %d, want at least %s (preStop %d s + server.drain_timeout %s + %s)",
			*grace, need, sleep, cfg.Server.DrainTimeout, requeueAllowance)
	}
}

// Readiness asks /readyz (503 while draining, so the endpoints drop the
// replica), liveness and startup /healthz, all on server.addr's port, where
// serve answers them; /metrics is on metrics.addr's.
func TestProbesReachTheServer(t *testing.T) {
	m := load(t)
	cfg := m.config(t)
	srv := m.server(t)
	want := portOf(t, "server.addr", cfg.Server.Addr)
	for name, p := range map[string]struct {
		probe *corev1.Probe
		path  string
	}{
		"readinessProbe": {srv.ReadinessProbe, "/readyz"},
		"livenessProbe":  {srv.LivenessProbe, "/healthz"},
		"startupProbe":   {srv.StartupProbe, "/healthz"},
	} {
		if p.probe == nil || p.probe.HTTPGet == nil {
			t.Errorf("%s: want an httpGet probe, got %+v", name, p.probe)
			continue
		}
		g := p.probe.HTTPGet
		if g.Path != p.path || g.Port.Type != intstr.String || namedPort(t, srv, g.Port.StrVal) != want {
			t.Errorf("%s: %s on port %s, want %s on the port of server.addr (%d)", name, g.Path, g.Port.String(), p.path, want)
		}
		// /readyz bounds its Redis ping at 2 s; a shorter timeout would
		// take a slow Redis for a dead replica.
		if p.probe.TimeoutSeconds < 3 {
			t.Errorf("%s: timeoutSeconds %d, want at least 3", name, p.probe.TimeoutSeconds)
		}
	}
	if got, want := namedPort(t, srv, "metrics"), portOf(t, "metrics.addr", cfg.Metrics.Addr); got != want {
		t.Errorf("metrics port %d, want metrics.addr's %d", got, want)
	}
}

// The Service sends callbacks to server.addr's port of the Deployment's
// pods, and the PDB counts the same pods.
func TestServiceAndBudgetSelectThePods(t *testing.T) {
	m := load(t)
	cfg := m.config(t)
	srv := m.server(t)
	labels := m.deployment.Spec.Template.Labels
	if !selects(m.deployment.Spec.Selector, labels) {
		t.Fatalf("Deployment selector %+v does not select its template's labels %v", m.deployment.Spec.Selector, labels)
	}
	for k, v := range m.commonLabels {
		if labels[k] != v {
			t.Errorf("the kustomization's label %s=%s is not on the pods: a selector built on it would miss them", k, v)
		}
	}
	sel := m.service.Spec.Selector
	if len(sel) == 0 || !selects(m.deployment.Spec.Selector, sel) {
		t.Errorf("Service selector %v, want the Deployment's %v", sel, m.deployment.Spec.Selector.MatchLabels)
	}
	if !maps.Equal(sel, m.deployment.Spec.Selector.MatchLabels) {
		t.Errorf("Service selector %v, want exactly the Deployment's %v", sel, m.deployment.Spec.Selector.MatchLabels)
	}
	if len(m.service.Spec.Ports) != 1 {
		t.Fatalf("Service ports %+v, want one: the callbacks' (metrics stay off it)", m.service.Spec.Ports)
	}
	tp := m.service.Spec.Ports[0].TargetPort
	if want := portOf(t, "server.addr", cfg.Server.Addr); tp.Type != intstr.String || namedPort(t, srv, tp.StrVal) != want {
		t.Errorf("Service targetPort %s, want the container port of server.addr (%d)", tp.String(), want)
	}
	if !maps.Equal(m.pdb.Spec.Selector.MatchLabels, m.deployment.Spec.Selector.MatchLabels) || len(m.pdb.Spec.Selector.MatchExpressions) != 0 {
		t.Errorf("PDB selector %+v, want the Deployment's %v", m.pdb.Spec.Selector, m.deployment.Spec.Selector.MatchLabels)
	}
	if m.pdb.Spec.MaxUnavailable == nil || m.pdb.Spec.MaxUnavailable.IntValue() != 1 || m.pdb.Spec.MinAvailable != nil {
		t.Errorf("PDB maxUnavailable %v minAvailable %v, want maxUnavailable 1: one replica drains while the others take its messages",
			m.pdb.Spec.MaxUnavailable, m.pdb.Spec.MinAvailable)
	}
	if r := m.deployment.Spec.Replicas; r == nil || *r < 2 {
		t.Errorf("replicas %v, want at least 2 so one serves while another drains", r)
	}
	if ru := m.deployment.Spec.Strategy.RollingUpdate; ru == nil || ru.MaxUnavailable == nil || ru.MaxUnavailable.IntValue() != 0 {
		t.Errorf("rollingUpdate %+v, want maxUnavailable 0: a new replica is ready before an old one drains", ru)
	}
}

// secretName matches an environment variable or config key that would
// carry a secret's value itself.
var secretName = regexp.MustCompile(`(?i)token|secret|password|passwd|aes_?key|api_?key|credential`)

// No secret is an environment variable: the Secret reaches wecodex only as
// read-only files, named by the config's *_file keys, and the ConfigMap
// holds none itself.
func TestSecretsOnlyAsFiles(t *testing.T) {
	m := load(t)
	m.config(t) // it validates with the Secret's files in place
	vol := m.secretVolume(t)
	for _, c := range m.containers() {
		for _, e := range c.Env {
			if secretName.MatchString(e.Name) {
				t.Errorf("container %s: env %s looks like a secret: mount it as a file", c.Name, e.Name)
			}
			if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
				t.Errorf("container %s: env %s comes from Secret %s: mount it as a file", c.Name, e.Name, e.ValueFrom.SecretKeyRef.Name)
			}
		}
		for _, e := range c.EnvFrom {
			if e.SecretRef != nil {
				t.Errorf("container %s: envFrom Secret %s: mount it as a file", c.Name, e.SecretRef.Name)
			}
		}
		for _, vm := range c.VolumeMounts {
			if vm.Name == vol.Name && (!vm.ReadOnly || vm.MountPath+"/" != secretDir || vm.SubPath != "") {
				t.Errorf("container %s mounts the Secret %+v, want it read-only, whole, at %s", c.Name, vm, secretDir)
			}
		}
	}
	if mode := vol.Secret.DefaultMode; mode == nil || *mode&0o7 != 0 {
		t.Errorf("Secret files' mode %v, want none for others", mode)
	}
	files := map[string]bool{}
	for _, it := range vol.Secret.Items {
		if it.Key != it.Path || it.Mode != nil {
			t.Errorf("Secret item %+v: want its key as its file name, in the volume's mode", it)
		}
		files[secretDir+it.Path] = true
	}

	var raw map[string]any
	if err := yaml.Unmarshal([]byte(m.configMap.Data["wecodex.yaml"]), &raw); err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	walk(raw, "", func(key string, v any) {
		name := path.Base(strings.ReplaceAll(key, ".", "/"))
		s, _ := v.(string)
		switch {
		case strings.HasSuffix(name, "_file"):
			if !files[s] {
				t.Errorf("%s: %q is not a file of the Secret volume (%v)", key, s, slices.Sorted(maps.Keys(files)))
			}
			used[s] = true
		case secretName.MatchString(name) && v != nil && s != "":
			t.Errorf("%s is set in the ConfigMap: put it in the Secret and name its file with %s_file", key, key)
		}
	})
	for _, c := range m.deployment.Spec.Template.Spec.InitContainers {
		for f := range files {
			if strings.Contains(strings.Join(c.Command, " "), "< "+f) {
				used[f] = true // read on stdin, as codex-login --with-api-key does
			}
		}
	}
	for f := range files {
		if !used[f] {
			t.Errorf("Secret file %s is mounted but nothing reads it", f)
		}
	}
}

// walk calls fn with every leaf of a decoded YAML tree and its dotted key.
func walk(v any, key string, fn func(string, any)) {
	if m, ok := v.(map[string]any); ok {
		for k, c := range m {
			walk(c, strings.TrimPrefix(key+"."+k, "."), fn)
		}
		return
	}
	fn(key, v)
}

// Every container runs as the image's unprivileged user, on a read-only
// root filesystem, with writable volumes where wecodex, Codex and the
// commands it runs write: the workspaces and CODEX_HOME (the image's
// defaults), HOME and /tmp.
func TestPodRunsUnprivilegedOnReadOnlyRoot(t *testing.T) {
	m := load(t)
	spec := m.deployment.Spec.Template.Spec
	psc := spec.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser == 0 || psc.FSGroup == nil {
		t.Fatalf("pod securityContext %+v, want runAsNonRoot, a non-zero runAsUser and an fsGroup", psc)
	}
	if spec.HostNetwork || spec.HostPID || spec.HostIPC {
		t.Error("the pod shares a host namespace")
	}
	if spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken {
		t.Error("automountServiceAccountToken is not false: Codex's commands would find a Kubernetes token")
	}
	if spec.EnableServiceLinks == nil || *spec.EnableServiceLinks {
		t.Error("enableServiceLinks is not false: the Service named wecodex would put WECODEX_PORT and the like among wecodex's config variables")
	}
	emptyDirs := map[string]bool{}
	for _, v := range spec.Volumes {
		if v.EmptyDir != nil {
			emptyDirs[v.Name] = true
		}
	}
	dockerfile, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	writable := []string{"/tmp", "/home/wecodex"}
	for _, env := range []string{"WECODEX_AGENT_WORKSPACE_ROOT", "WECODEX_AGENT_CODEX_HOME"} {
		got := regexp.MustCompile(env + `=(\S+)`).FindSubmatch(dockerfile)
		if got == nil {
			t.Fatalf("the Dockerfile sets no %s", env)
		}
		writable = append(writable, string(got[1]))
	}
	for _, c := range m.containers() {
		sc := c.SecurityContext
		if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
			sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
			(sc.Privileged != nil && *sc.Privileged) ||
			sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) != 0 {
			t.Errorf("container %s: securityContext %+v, want a read-only root, no privilege escalation, every capability dropped", c.Name, sc)
		}
		if sc != nil && sc.RunAsUser != nil && *sc.RunAsUser == 0 {
			t.Errorf("container %s runs as root", c.Name)
		}
		for _, dir := range writable {
			var on *corev1.VolumeMount
			for i, vm := range c.VolumeMounts {
				if (dir == vm.MountPath || strings.HasPrefix(dir, vm.MountPath+"/")) && (on == nil || len(vm.MountPath) > len(on.MountPath)) {
					on = &c.VolumeMounts[i]
				}
			}
			if on == nil || on.ReadOnly || !emptyDirs[on.Name] {
				t.Errorf("container %s: %s is not on a writable volume (%+v)", c.Name, dir, on)
			}
		}
	}
	srv := m.server(t)
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if q, ok := srv.Resources.Requests[r]; !ok || q.IsZero() {
			t.Errorf("no %s request: the scheduler would pack replicas onto one node's cores", r)
		}
	}
	if lim, req := srv.Resources.Limits[corev1.ResourceMemory], srv.Resources.Requests[corev1.ResourceMemory]; lim.Cmp(req) < 0 {
		t.Errorf("memory limit %s below its request %s", lim.String(), req.String())
	}
}
