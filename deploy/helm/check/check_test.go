package main

import (
	"strings"
	"testing"
)

// A Deployment as helm renders one: a "# Source:" comment, a document
// separator, and an empty document from a template whose condition is off.
const goodDeployment = `---
# Source: sluice/templates/gateway-deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: sluice-gateway
spec:
  replicas: 2
  selector:
    matchLabels: {app: gateway}
  template:
    metadata:
      labels: {app: gateway}
    spec:
      terminationGracePeriodSeconds: 30
      containers:
        - name: gateway
          image: sluice/gateway:0.1.0
          resources:
            requests: {cpu: 500m, memory: 256Mi}
          readinessProbe:
            httpGet: {path: /readyz, port: http}
---
# Source: sluice/templates/off.yaml
`

func TestCheckAcceptsValidManifests(t *testing.T) {
	kinds, errs := Check([]byte(goodDeployment))
	if len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	if kinds["Deployment"] != 1 || len(kinds) != 1 {
		t.Fatalf("kinds = %v, want one Deployment", kinds)
	}
}

func TestCheckRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, manifest, want string
	}{
		{"unknown field", strings.Replace(goodDeployment, "terminationGracePeriodSeconds", "terminationGracePeriod", 1), `unknown field "spec.template.spec.terminationGracePeriod"`},
		// encoding/json would match this to readinessProbe and drop nothing.
		{"field in the wrong case", strings.Replace(goodDeployment, "readinessProbe", "readinessprobe", 1), `unknown field "spec.template.spec.containers[0].readinessprobe"`},
		{"field given twice", strings.Replace(goodDeployment, "  replicas: 2\n", "  replicas: 2\n  replicas: 3\n", 1), `"replicas" already set`},
		{"wrong value type", strings.Replace(goodDeployment, "replicas: 2", "replicas: two", 1), "cannot unmarshal string"},
		{"unknown kind", strings.Replace(goodDeployment, "kind: Deployment", "kind: Deploymnet", 1), "unknown kind apps/v1/Deploymnet"},
		{"kind of a group the chart does not use", strings.Replace(goodDeployment, "apiVersion: apps/v1", "apiVersion: apps/v1beta1", 1), "unknown kind apps/v1beta1/Deployment"},
		{"no name", strings.Replace(goodDeployment, "name: sluice-gateway", "labels: {}", 1), "metadata.name is required"},
		{"nothing rendered", "---\n# Source: x.yaml\n", "no manifests"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errs := Check([]byte(tc.manifest))
			if len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.want) {
				t.Fatalf("errors = %v, want one containing %q", errs, tc.want)
			}
		})
	}
}

func TestCheckKnowsServiceMonitor(t *testing.T) {
	const sm = `apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: sluice-gateway}
spec:
  selector: {matchLabels: {app: gateway}}
  endpoints: [{port: http, path: /metrics, interval: 30s}]
`
	if _, errs := Check([]byte(sm)); len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	if _, errs := Check([]byte(strings.Replace(sm, "interval", "intervall", 1))); len(errs) != 1 {
		t.Fatalf("a misspelt ServiceMonitor field passed: %v", errs)
	}
}
