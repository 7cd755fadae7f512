#!/bin/sh
# Applies the node-termination-handler add-on's objects from this control-plane node.
set -eu
dir="${KUBERNETES_DIR:-/etc/kubernetes}"
export KUBECONFIG="$dir/admin.conf"
role_file="${NODE_ROLE_FILE:-/etc/cilium-cluster/node-role}"
tries=0
until [ -s "$KUBECONFIG" ] && kubectl get --raw /readyz >/dev/null 2>&1; do
  role=$(cat "$role_file" 2>/dev/null || true)
  if [ -n "$role" ] && [ "$role" != control-plane ]; then
    echo "not a control-plane node (role $role): node-termination-handler is applied by the control plane"
    exit 0
  fi
  tries=$((tries + 1))
  if [ "$tries" -gt 150 ]; then
    echo "the local API server did not become ready in 25 minutes" >&2
    exit 1
  fi
  sleep 10
done
kubectl apply --server-side --force-conflicts --field-manager=cilium-cluster -f - <<'CILIUM_CLUSTER_MANIFEST'
apiVersion: v1
kind: ServiceAccount
metadata:
  name: aws-node-termination-handler
  labels:
    app.kubernetes.io/name: aws-node-termination-handler
    app.kubernetes.io/instance: aws-node-termination-handler
    app.kubernetes.io/version: 1.25.5
    app.kubernetes.io/part-of: aws-node-termination-handler
  namespace: kube-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: aws-node-termination-handler
  labels:
    app.kubernetes.io/name: aws-node-termination-handler
    app.kubernetes.io/instance: aws-node-termination-handler
    app.kubernetes.io/version: 1.25.5
    app.kubernetes.io/part-of: aws-node-termination-handler
rules:
  - apiGroups:
      - ""
    resources:
      - nodes
    verbs:
      - get
      - list
      - patch
      - update
  - apiGroups:
      - ""
    resources:
      - pods
    verbs:
      - list
      - get
  - apiGroups:
      - ""
    resources:
      - pods/eviction
    verbs:
      - create
  - apiGroups:
      - extensions
    resources:
      - daemonsets
    verbs:
      - get
  - apiGroups:
      - apps
    resources:
      - daemonsets
    verbs:
      - get
  - apiGroups:
      - ""
    resources:
      - events
    verbs:
      - create
      - patch
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: aws-node-termination-handler
  labels:
    app.kubernetes.io/name: aws-node-termination-handler
    app.kubernetes.io/instance: aws-node-termination-handler
    app.kubernetes.io/version: 1.25.5
    app.kubernetes.io/part-of: aws-node-termination-handler
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: aws-node-termination-handler
subjects:
  - kind: ServiceAccount
    name: aws-node-termination-handler
    namespace: kube-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: aws-node-termination-handler
  labels:
    app.kubernetes.io/name: aws-node-termination-handler
    app.kubernetes.io/instance: aws-node-termination-handler
    app.kubernetes.io/version: 1.25.5
    app.kubernetes.io/part-of: aws-node-termination-handler
    app.kubernetes.io/component: deployment
  namespace: kube-system
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: aws-node-termination-handler
      app.kubernetes.io/instance: aws-node-termination-handler
      app.kubernetes.io/component: deployment
  template:
    metadata:
      labels:
        app.kubernetes.io/name: aws-node-termination-handler
        app.kubernetes.io/instance: aws-node-termination-handler
        app.kubernetes.io/component: deployment
        k8s-app: aws-node-termination-handler
    spec:
      serviceAccountName: aws-node-termination-handler
      securityContext:
        fsGroup: 1000
      priorityClassName: system-cluster-critical
      hostNetwork: true
      dnsPolicy: Default
      containers:
        - name: aws-node-termination-handler
          securityContext:
            readOnlyRootFilesystem: true
            runAsNonRoot: true
            allowPrivilegeEscalation: false
            runAsUser: 1000
            runAsGroup: 1000
          image: public.ecr.aws/aws-ec2/aws-node-termination-handler:v1.25.5
          imagePullPolicy: IfNotPresent
          env:
            - name: NODE_NAME
              valueFrom:
                fieldRef:
                  fieldPath: spec.nodeName
            - name: POD_NAME
              valueFrom:
                fieldRef:
                  fieldPath: metadata.name
            - name: NAMESPACE
              valueFrom:
                fieldRef:
                  fieldPath: metadata.namespace
            - name: ENABLE_PROBES_SERVER
              value: "true"
            - name: PROBES_SERVER_PORT
              value: "8080"
            - name: PROBES_SERVER_ENDPOINT
              value: /healthz
            - name: LOG_LEVEL
              value: info
            - name: JSON_LOGGING
              value: "true"
            - name: LOG_FORMAT_VERSION
              value: "2"
            - name: ENABLE_PROMETHEUS_SERVER
              value: "false"
            - name: PROMETHEUS_SERVER_PORT
              value: "9092"
            - name: CHECK_ASG_TAG_BEFORE_DRAINING
              value: "true"
            - name: CHECK_TAG_BEFORE_DRAINING
              value: "true"
            - name: MANAGED_ASG_TAG
              value: kubernetes.io/cluster/internal.k8s.local
            - name: MANAGED_TAG
              value: kubernetes.io/cluster/internal.k8s.local
            - name: USE_PROVIDER_ID
              value: "true"
            - name: DRY_RUN
              value: "false"
            - name: CORDON_ONLY
              value: "false"
            - name: TAINT_NODE
              value: "false"
            - name: ENABLE_OUT_OF_SERVICE_TAINT
              value: "false"
            - name: EXCLUDE_FROM_LOAD_BALANCERS
              value: "true"
            - name: DELETE_LOCAL_DATA
              value: "true"
            - name: IGNORE_DAEMON_SETS
              value: "true"
            - name: POD_TERMINATION_GRACE_PERIOD
              value: "-1"
            - name: NODE_TERMINATION_GRACE_PERIOD
              value: "120"
            - name: EMIT_KUBERNETES_EVENTS
              value: "true"
            - name: COMPLETE_LIFECYCLE_ACTION_DELAY_SECONDS
              value: "-1"
            - name: ENABLE_SQS_TERMINATION_DRAINING
              value: "true"
            - name: QUEUE_URL
              value: https://sqs.eu-west-1.amazonaws.com/000000000000/internal-k8s-local-nth-9b8f6b
            - name: DELETE_SQS_MSG_IF_NODE_NOT_FOUND
              value: "false"
            - name: WORKERS
              value: "10"
            - name: HEARTBEAT_INTERVAL
              value: "-1"
            - name: HEARTBEAT_UNTIL
              value: "-1"
            - name: SQS_MSG_VISIBILITY_TIMEOUT_SEC
              value: "20"
          ports:
            - name: liveness-probe
              protocol: TCP
              containerPort: 8080
          livenessProbe:
            httpGet:
              path: /healthz
              port: 8080
            initialDelaySeconds: 5
            periodSeconds: 5
          resources:
            requests:
              cpu: 50m
              memory: 64Mi
      nodeSelector:
        kubernetes.io/os: linux
        node-role.kubernetes.io/control-plane: ""
      tolerations:
        - key: node-role.kubernetes.io/control-plane
          operator: Exists
        - key: node-role.kubernetes.io/master
          operator: Exists
        - key: node.cloudprovider.kubernetes.io/uninitialized
          operator: Exists
CILIUM_CLUSTER_MANIFEST

