{{/* Names: <release>-sluice-<component>, cut to 63 characters. */}}
{{- define "sluice.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "sluice.name" -}}
{{- printf "%s-%s" (include "sluice.fullname" .root) .component -}}
{{- end -}}

{{- define "sluice.selectorLabels" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "sluice.labels" -}}
{{ include "sluice.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version }}
{{- end -}}

{{- define "sluice.image" -}}
{{- $img := .image -}}
{{- $tag := $img.tag | default .root.Values.image.tag | default .root.Chart.AppVersion -}}
{{- printf "%s/%s/%s:%s" .root.Values.image.registry .root.Values.image.repository $img.repository $tag -}}
{{- end -}}

{{- define "sluice.secretName" -}}
{{- .Values.secrets.existingSecret | default (printf "%s-secrets" (include "sluice.fullname" .)) -}}
{{- end -}}

{{/* One env entry from the Sluice Secret; optional ones stay unset when the key is missing. */}}
{{- define "sluice.secretEnv" -}}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ include "sluice.secretName" .root }}
      key: {{ .key }}
      optional: {{ .optional }}
{{- end -}}

{{/*
The Kafka and schema registry settings every component reads the same way
(apps/gateway/README.md, @sluice/kafka-settings, @sluice/schema-registry).
Certificates are files from mounted Secrets (sluice.kafkaVolumes).
*/}}
{{- define "sluice.kafkaEnv" -}}
{{- $v := .Values -}}
- name: KAFKA_BROKERS
  value: {{ join "," $v.kafka.brokers | quote }}
- name: KAFKA_SECURITY_PROTOCOL
  value: {{ $v.kafka.securityProtocol | quote }}
- name: SLUICE_CATALOG_TOPIC
  value: {{ $v.kafka.catalogTopic | quote }}
- name: SLUICE_USAGE_TOPIC
  value: {{ $v.kafka.usageTopic | quote }}
- name: KAFKAJS_NO_PARTITIONER_WARNING
  value: "1"
{{- with $v.kafka.sasl.mechanism }}
- name: KAFKA_SASL_MECHANISM
  value: {{ . | quote }}
{{- end }}
{{- with $v.kafka.sasl.username }}
- name: KAFKA_SASL_USERNAME
  value: {{ . | quote }}
{{- end }}
{{- with $v.kafka.sasl.oauthbearer.tokenEndpointUrl }}
- name: KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL
  value: {{ . | quote }}
{{- end }}
{{- with $v.kafka.sasl.oauthbearer.clientId }}
- name: KAFKA_SASL_OAUTHBEARER_CLIENT_ID
  value: {{ . | quote }}
{{- end }}
{{- with $v.kafka.sasl.oauthbearer.scope }}
- name: KAFKA_SASL_OAUTHBEARER_SCOPE
  value: {{ . | quote }}
{{- end }}
{{ include "sluice.secretEnv" (dict "root" . "name" "KAFKA_SASL_PASSWORD" "key" $v.secrets.keys.kafkaSaslPassword "optional" true) }}
{{ include "sluice.secretEnv" (dict "root" . "name" "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET" "key" $v.secrets.keys.kafkaOauthClientSecret "optional" true) }}
{{- if $v.kafka.tls.secretName }}
- name: KAFKA_TLS_CA_FILE
  value: /etc/sluice/kafka-tls/ca.crt
{{- if $v.kafka.tls.clientCertificate }}
- name: KAFKA_TLS_CERT_FILE
  value: /etc/sluice/kafka-tls/tls.crt
- name: KAFKA_TLS_KEY_FILE
  value: /etc/sluice/kafka-tls/tls.key
{{- end }}
{{- end }}
{{- with $v.kafka.tls.serverName }}
- name: KAFKA_TLS_SERVER_NAME
  value: {{ . | quote }}
{{- end }}
{{- with $v.schemaRegistry.url }}
- name: SCHEMA_REGISTRY_URL
  value: {{ . | quote }}
{{- end }}
{{- with $v.schemaRegistry.basicAuthUsername }}
- name: SCHEMA_REGISTRY_BASIC_AUTH_USERNAME
  value: {{ . | quote }}
{{- end }}
{{ include "sluice.secretEnv" (dict "root" . "name" "SCHEMA_REGISTRY_BASIC_AUTH_PASSWORD" "key" $v.secrets.keys.schemaRegistryPassword "optional" true) }}
{{ include "sluice.secretEnv" (dict "root" . "name" "SCHEMA_REGISTRY_BEARER_TOKEN" "key" $v.secrets.keys.schemaRegistryBearerToken "optional" true) }}
{{- if $v.schemaRegistry.tlsSecretName }}
- name: SCHEMA_REGISTRY_TLS_CA_FILE
  value: /etc/sluice/registry-tls/ca.crt
{{- if $v.schemaRegistry.clientCertificate }}
- name: SCHEMA_REGISTRY_TLS_CERT_FILE
  value: /etc/sluice/registry-tls/tls.crt
- name: SCHEMA_REGISTRY_TLS_KEY_FILE
  value: /etc/sluice/registry-tls/tls.key
{{- end }}
{{- end }}
{{- end -}}

{{- define "sluice.kafkaVolumeMounts" -}}
{{- if .Values.kafka.tls.secretName }}
- name: kafka-tls
  mountPath: /etc/sluice/kafka-tls
  readOnly: true
{{- end }}
{{- if .Values.schemaRegistry.tlsSecretName }}
- name: registry-tls
  mountPath: /etc/sluice/registry-tls
  readOnly: true
{{- end }}
{{- end -}}

{{- define "sluice.kafkaVolumes" -}}
{{- if .Values.kafka.tls.secretName }}
- name: kafka-tls
  secret:
    secretName: {{ .Values.kafka.tls.secretName }}
    defaultMode: 0440
{{- end }}
{{- if .Values.schemaRegistry.tlsSecretName }}
- name: registry-tls
  secret:
    secretName: {{ .Values.schemaRegistry.tlsSecretName }}
    defaultMode: 0440
{{- end }}
{{- end -}}

{{/* The locked-down container every Sluice process runs in. */}}
{{- define "sluice.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: {{ .readOnly }}
runAsNonRoot: true
runAsUser: {{ .uid }}
runAsGroup: {{ .uid }}
capabilities:
  drop: [ALL]
{{- end -}}

{{- define "sluice.portalUrl" -}}
{{- printf "http://%s:%d" (include "sluice.name" (dict "root" . "component" "portal")) (int .Values.portal.service.port) -}}
{{- end -}}
