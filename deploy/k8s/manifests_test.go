package k8s

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/wecodex/wecodex/configs"
)

// kustomization is the part of kustomize's file these manifests use; any
// other field fails the strict decode, so this test reads what kubectl will.
type kustomization struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Labels     []struct {
		Pairs map[string]string `json:"pairs"`
	} `json:"labels"`
	Resources []string `json:"resources"`
}

// manifests is every object of deploy/k8s, each decoded strictly into its
// API type.
type manifests struct {
	configMap  *corev1.ConfigMap
	deployment *appsv1.Deployment
	service    *corev1.Service
	pdb        *policyv1.PodDisruptionBudget
	// commonLabels are the kustomization's labels, which kubectl apply -k
	// adds to every object's metadata (not to selectors or templates).
	commonLabels map[string]string
}

// strict decodes one YAML document: an unknown or duplicate field, a
// misspelt key or a wrong type is an error, as kubectl's server-side field
// validation makes it.
func strict(t *testing.T, path string, into any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "\n---") {
		t.Fatalf("%s: one object per file", path)
	}
	if err := yaml.UnmarshalStrict(raw, into); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func load(t *testing.T) manifests {
	t.Helper()
	var k kustomization
	strict(t, "kustomization.yaml", &k)
	if k.APIVersion != "kustomize.config.k8s.io/v1beta1" || k.Kind != "Kustomization" {
		t.Fatalf("kustomization.yaml: %s %s", k.APIVersion, k.Kind)
	}
	files, err := filepath.Glob("*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	files = slices.DeleteFunc(files, func(f string) bool { return f == "kustomization.yaml" })
	if res := slices.Sorted(slices.Values(k.Resources)); !slices.Equal(res, files) {
		t.Fatalf("kustomization.yaml lists %q, the directory holds %q: apply -k would leave some out", res, files)
	}
	m := manifests{commonLabels: map[string]string{}}
	for _, l := range k.Labels {
		for n, v := range l.Pairs {
			m.commonLabels[n] = v
		}
	}
	for _, f := range files {
		var tm metav1.TypeMeta
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(raw, &tm); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		switch gvk := tm.APIVersion + " " + tm.Kind; gvk {
		case "v1 ConfigMap":
			m.configMap = new(corev1.ConfigMap)
			strict(t, f, m.configMap)
		case "apps/v1 Deployment":
			m.deployment = new(appsv1.Deployment)
			strict(t, f, m.deployment)
		case "v1 Service":
			m.service = new(corev1.Service)
			strict(t, f, m.service)
		case "policy/v1 PodDisruptionBudget":
			m.pdb = new(policyv1.PodDisruptionBudget)
			strict(t, f, m.pdb)
		default:
			t.Fatalf("%s: %q is not a kind this test checks", f, gvk)
		}
	}
	if m.configMap == nil || m.deployment == nil || m.service == nil || m.pdb == nil {
		t.Fatalf("want a ConfigMap, a Deployment, a Service and a PodDisruptionBudget, got %+v", m)
	}
	return m
}

// secretDir is where the Secret's files are mounted in the pod.
const secretDir = "/etc/wecodex/secrets/"

// config loads the ConfigMap's wecodex.yaml as wecodex serve would in the
// pod, with the Secret's files (the keys the volume lists) written under a
// temporary directory in their place, each holding a value of its kind.
func (m manifests) config(t *testing.T) *configs.Config {
	t.Helper()
	text, ok := m.configMap.Data["wecodex.yaml"]
	if !ok {
		t.Fatalf("ConfigMap %s has no wecodex.yaml", m.configMap.Name)
	}
	dir := t.TempDir()
	for _, it := range m.secretVolume(t).Secret.Items {
		value := "k8sTestToken"
		if strings.Contains(it.Path, "aes_key") {
			value = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"
		}
		if err := os.WriteFile(filepath.Join(dir, it.Path), []byte(value+"\n"), 0o440); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "wecodex.yaml")
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(text, secretDir, dir+"/")), 0o644); err != nil {
		t.Fatal(err)
	}
	// Checked as serve checks it, with nothing of this machine's
	// environment in it.
	for _, kv := range os.Environ() {
		if n, _, _ := strings.Cut(kv, "="); strings.HasPrefix(n, "WECODEX_") {
			t.Setenv(n, "")
			os.Unsetenv(n)
		}
	}
	cfg, warns, err := configs.Check(path)
	if err != nil || len(warns) != 0 {
		t.Fatalf("the ConfigMap's wecodex.yaml: %v, warnings %v", err, warns)
	}
	return cfg
}

// secretVolume is the pod's one Secret volume.
func (m manifests) secretVolume(t *testing.T) corev1.Volume {
	t.Helper()
	var found []corev1.Volume
	for _, v := range m.deployment.Spec.Template.Spec.Volumes {
		if v.Secret != nil {
			found = append(found, v)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one Secret volume, got %d", len(found))
	}
	return found[0]
}

// containers is every container of the pod, init containers first.
func (m manifests) containers() []corev1.Container {
	s := m.deployment.Spec.Template.Spec
	return append(slices.Clone(s.InitContainers), s.Containers...)
}

// server is the container that runs wecodex serve.
func (m manifests) server(t *testing.T) corev1.Container {
	t.Helper()
	cs := m.deployment.Spec.Template.Spec.Containers
	if len(cs) != 1 || !slices.Equal(cs[0].Args, []string{"serve", "--config", "/etc/wecodex/wecodex.yaml"}) {
		t.Fatalf("want one container running serve --config /etc/wecodex/wecodex.yaml, got %+v", cs)
	}
	return cs[0]
}

// portOf is the TCP port of a listen address like ":8080".
func portOf(t *testing.T, key, addr string) int32 {
	t.Helper()
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatalf("%s %q: %v", key, addr, err)
	}
	n, err := strconv.Atoi(p)
	if err != nil {
		t.Fatalf("%s %q: %v", key, addr, err)
	}
	return int32(n)
}

// namedPort is the container port a probe or Service names.
func namedPort(t *testing.T, c corev1.Container, name string) int32 {
	t.Helper()
	for _, p := range c.Ports {
		if p.Name == name {
			return p.ContainerPort
		}
	}
	t.Fatalf("container %s has no port named %q", c.Name, name)
	return 0
}

// selects says whether a label selector picks pods with these labels.
func selects(sel *metav1.LabelSelector, labels map[string]string) bool {
	if sel == nil || len(sel.MatchLabels) == 0 || len(sel.MatchExpressions) != 0 {
		return false
	}
	for k, v := range sel.MatchLabels {
		if labels[k] != v {
			return false
		}
	}
	return true
}
