{{/* Name of the chart, truncated to 63 characters. */}}
{{- define "fleet-audit.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Fully qualified app name: release-chart unless the release name already contains the chart name. */}}
{{- define "fleet-audit.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "fleet-audit.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "fleet-audit.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "fleet-audit.selectorLabels" -}}
app.kubernetes.io/name: {{ include "fleet-audit.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "fleet-audit.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "fleet-audit.secretName" -}}
{{- .Values.existingSecret | default (include "fleet-audit.fullname" .) -}}
{{- end -}}

{{- define "fleet-audit.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- .Values.serviceAccount.name | default (include "fleet-audit.fullname" .) -}}
{{- else -}}
{{- .Values.serviceAccount.name | default "default" -}}
{{- end -}}
{{- end -}}

{{/* Environment shared by api, worker and the migration Job. */}}
{{- define "fleet-audit.env" -}}
- name: DATABASE_URL
  valueFrom: { secretKeyRef: { name: {{ include "fleet-audit.secretName" . }}, key: DATABASE_URL } }
- name: LOG_LEVEL
  value: {{ .Values.log.level | quote }}
- name: ALIBABA_CLOUD_ACCESS_KEY_ID
  valueFrom: { secretKeyRef: { name: {{ include "fleet-audit.secretName" . }}, key: ALIBABA_CLOUD_ACCESS_KEY_ID, optional: true } }
- name: ALIBABA_CLOUD_ACCESS_KEY_SECRET
  valueFrom: { secretKeyRef: { name: {{ include "fleet-audit.secretName" . }}, key: ALIBABA_CLOUD_ACCESS_KEY_SECRET, optional: true } }
- name: FLEET_AUDIT_QUEUE_PREFIX
  value: {{ .Values.queuePrefix | quote }}
{{- if .Values.log.debug }}
- name: FLEET_AUDIT_DEBUG
  value: "1"
{{- end }}
{{- end -}}

{{/* Extra environment (values extraEnv / extraEnvFrom), appended after the chart's own. */}}
{{- define "fleet-audit.extraEnv" -}}
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end -}}
