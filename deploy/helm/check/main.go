// Command check decodes Kubernetes manifests (the output of `helm template`)
// strictly against the API types the chart may render: a field the type does
// not have, a field given twice, a wrong value type or a kind the chart has no
// business rendering fails the check. `helm lint` cannot see any of these: it
// checks the chart's structure and values schema, not what the templates
// produce, and a misspelt key (readinessprobe, terminationGracePeriod) would
// otherwise be dropped silently by the API server or fail only at install.
//
//	check FILE...   each FILE a multi-document YAML stream; "-" is stdin
package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: check FILE... (- for stdin)")
		os.Exit(2)
	}
	failed := false
	for _, name := range os.Args[1:] {
		data, err := readInput(name)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			failed = true
			continue
		}
		kinds, errs := Check(data)
		for _, err := range errs {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		}
		if len(errs) > 0 {
			failed = true
			continue
		}
		fmt.Printf("%s: %d manifests decoded strictly (%s)\n", name, total(kinds), summary(kinds))
	}
	if failed {
		os.Exit(1)
	}
}

func readInput(name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(os.Stdin)
	}
	return os.ReadFile(name)
}

// scheme holds every API group the chart renders, and nothing else: an object
// of any other group or kind is refused rather than waved through.
var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, appsv1.AddToScheme, batchv1.AddToScheme, autoscalingv2.AddToScheme,
		policyv1.AddToScheme, networkingv1.AddToScheme, monitoringv1.AddToScheme,
	} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}()

// typeMeta is read first, loosely, to pick the Go type the document decodes into.
type typeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
}

// Check decodes every document of a YAML stream strictly and returns the
// count of each kind, or every error found (each naming its document).
func Check(stream []byte) (map[string]int, []error) {
	kinds := map[string]int{}
	var errs []error
	for i, doc := range splitDocuments(stream) {
		var meta typeMeta
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			errs = append(errs, fmt.Errorf("document %d: not YAML: %w", i+1, err))
			continue
		}
		where := fmt.Sprintf("document %d (%s %q)", i+1, meta.Kind, meta.Metadata.Name)
		if meta.APIVersion == "" || meta.Kind == "" {
			errs = append(errs, fmt.Errorf("%s: apiVersion and kind are required", where))
			continue
		}
		if meta.Metadata.Name == "" {
			errs = append(errs, fmt.Errorf("%s: metadata.name is required", where))
			continue
		}
		gv, err := schema.ParseGroupVersion(meta.APIVersion)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", where, err))
			continue
		}
		obj, err := scheme.New(gv.WithKind(meta.Kind))
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: unknown kind %s/%s", where, meta.APIVersion, meta.Kind))
			continue
		}
		// Decoded the way the API server decodes with fieldValidation=Strict:
		// YAMLToJSONStrict refuses a key given twice, and sigs.k8s.io/json
		// matches field names case-sensitively (encoding/json, which
		// yaml.UnmarshalStrict uses, would take "readinessprobe" for
		// readinessProbe) and reports every unknown field.
		j, err := yaml.YAMLToJSONStrict(doc)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", where, err))
			continue
		}
		strictErrs, err := kjson.UnmarshalStrict(j, obj)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", where, err))
			continue
		}
		if len(strictErrs) > 0 {
			errs = append(errs, fmt.Errorf("%s: %w", where, errors.Join(strictErrs...)))
			continue
		}
		kinds[meta.Kind]++
	}
	if len(kinds) == 0 && len(errs) == 0 {
		errs = append(errs, errors.New("no manifests: an empty render proves nothing"))
	}
	return kinds, errs
}

// splitDocuments cuts a YAML stream at its "---" lines and drops documents
// that hold only comments or whitespace (helm prints a "# Source:" comment
// above each template, and a template whose condition is off renders nothing).
func splitDocuments(stream []byte) [][]byte {
	var docs [][]byte
	var cur bytes.Buffer
	flush := func() {
		if hasContent(cur.Bytes()) {
			docs = append(docs, bytes.Clone(cur.Bytes()))
		}
		cur.Reset()
	}
	sc := bufio.NewScanner(bytes.NewReader(stream))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimRight(line, " \t") == "---" || strings.HasPrefix(line, "--- ") {
			flush()
			continue
		}
		cur.WriteString(line)
		cur.WriteByte('\n')
	}
	flush()
	return docs
}

func hasContent(doc []byte) bool {
	for _, line := range strings.Split(string(doc), "\n") {
		t := strings.TrimSpace(line)
		if t != "" && !strings.HasPrefix(t, "#") {
			return true
		}
	}
	return false
}

func total(kinds map[string]int) int {
	n := 0
	for _, c := range kinds {
		n += c
	}
	return n
}

func summary(kinds map[string]int) string {
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%s %d", k, kinds[k])
	}
	return strings.Join(parts, ", ")
}
