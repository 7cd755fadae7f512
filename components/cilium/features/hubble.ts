/**
 * `networking.cilium.hubble`: Hubble's flow observability in every agent, and optionally its relay, the one
 * endpoint (`hubble-relay`, port 80) that gathers the flows of every node for the `hubble` CLI.
 *
 * TLS as Cilium's chart does it with `hubble.tls.auto.method: cronJob`: `cilium-certgen` runs in the
 * cluster as a Job (and every four months as a CronJob), keeps the CA in the Secret `cilium-ca` and writes
 * the agents' server certificates and the relay's client certificate as Secrets. No key passes through
 * Pulumi's state or the plan, unlike the chart's default (`helm`), which generates them at render time.
 *
 * The objects follow the chart of each shipped line (templates/hubble/, templates/hubble-relay/); the
 * parity test renders that chart with `chartValues` and compares.
 */
import { createHash } from "crypto";
import { CiliumRelease, ciliumLineOf } from "../../../catalogs/ciliumVersions";
import type { CiliumSpec } from "../ciliumSpec";
import type { K8sObject } from "../../k8s/object";
import { CLOUD_UNINITIALIZED_TOLERATION, CONTROL_PLANE_TOLERATIONS } from "../../k8s/placement";
import { HUBBLE_PEER_SERVICE, HUBBLE_SERVER } from "../../wellKnownPorts";
import { ciliumClusterName } from "../clusterName";
import type { CiliumFeature } from "./ciliumFeatureShape";

const REGISTRY = "quay.io/cilium";
const TLS_DIR = "/var/lib/cilium/tls/hubble";
const PART_OF = { "app.kubernetes.io/part-of": "cilium" };
const CERTGEN = "hubble-generate-certs";

/** Where a line's chart shapes the certificate jobs and the relay differently. */
interface LineShape {
  /** Arguments the line's certgen takes beyond the CA's. */
  certgenArgs: string[];
  /** 1.18: the CronJob's finished jobs go after 30 minutes, and the pod names its account twice; no history limits. */
  jobsExpire: boolean;
  /** 1.20: the relay's root file system is read-only, with an emptyDir at /tmp. */
  relayReadOnlyRoot: boolean;
  /** From 1.19 the agent declares its Hubble port (1.18 only with metrics on). */
  agentPeerPort: boolean;
}

/** Any node that can run pods: the control plane too, and one the cloud controller has not initialised yet. */
const ANY_NODE_TOLERATIONS = [...CONTROL_PLANE_TOLERATIONS, CLOUD_UNINITIALIZED_TOLERATION];

const LINES: Readonly<Record<string, LineShape>> = {
  "1.18": {
    certgenArgs: [],
    jobsExpire: true,
    relayReadOnlyRoot: false,
    agentPeerPort: false,
  },
  "1.19": {
    certgenArgs: [],
    jobsExpire: false,
    relayReadOnlyRoot: false,
    agentPeerPort: true,
  },
  "1.20": {
    certgenArgs: ["--ca-enforce-validity-throughout-leaves-duration=true"],
    jobsExpire: false,
    relayReadOnlyRoot: true,
    agentPeerPort: true,
  },
};

/** The line's shape with the release's images, as its chart pins them. */
interface Shape extends LineShape {
  certgenImage: string;
  relayImage: string;
}

function lineShape(spec: CiliumSpec): LineShape {
  const line = ciliumLineOf(spec.networking.cilium.version)?.line;
  const shape = line && LINES[line];
  if (!shape) throw new Error(`Hubble has no shape for Cilium ${spec.networking.cilium.version}`);
  return shape;
}

/**
 * The shape and images of a release: pinned by the digests of its chart where the catalog records them;
 * otherwise the relay by tag, and certgen (versioned apart from Cilium) as the line's recorded chart pins it.
 */
function shapeOf(spec: CiliumSpec, release: CiliumRelease | undefined): Shape {
  const version = spec.networking.cilium.version;
  const pinned = release?.digests;
  const recorded = ciliumLineOf(version)?.releases.find((r) => r.digests)?.digests;
  if (!recorded) throw new Error(`no chart recorded for Cilium ${version}'s line`);
  return {
    ...lineShape(spec),
    certgenImage: (pinned ?? recorded).certgen,
    relayImage: `${REGISTRY}/hubble-relay:${version}${pinned ? `@${pinned.hubbleRelay}` : ""}`,
  };
}

const labelled = (name: string) => ({ "k8s-app": name, "app.kubernetes.io/name": name, ...PART_OF });

/** The certificates certgen writes: the agents' server certificate, and the relay's client one. */
function certgenConfig(spec: CiliumSpec, namespace: string): string {
  const cert = (name: string, host: string, usages: string[]) =>
    [
      `- name: ${name}`,
      `  namespace: ${namespace}`,
      `  commonName: "${host}"`,
      `  hosts:`,
      `  - "${host}"`,
      `  usage:`,
      ...usages.map((u) => `  - ${u}`),
      `  validity: 8760h`,
    ].join("\n");
  const server = cert("hubble-server-certs", `*.${ciliumClusterName(spec.clusterName)}.hubble-grpc.cilium.io`, [
    "signing",
    "key encipherment",
    "server auth",
    "client auth",
  ]);
  const relay = cert("hubble-relay-client-certs", "*.hubble-relay.cilium.io", [
    "signing",
    "key encipherment",
    "client auth",
  ]);
  return ["certs:", server, ...(spec.networking.cilium.hubble.relay ? [relay] : [])].join("\n") + "\n";
}

/** The certgen pod: the CA kept in `cilium-ca`, reused on every run, and the certificates above. */
function certgenPod(spec: CiliumSpec, namespace: string, shape: Shape): object {
  return {
    metadata: { labels: { "k8s-app": CERTGEN } },
    spec: {
      securityContext: { seccompProfile: { type: "RuntimeDefault" } },
      containers: [
        {
          name: "certgen",
          image: shape.certgenImage,
          imagePullPolicy: "IfNotPresent",
          securityContext: { capabilities: { drop: ["ALL"] }, allowPrivilegeEscalation: false },
          command: ["/usr/bin/cilium-certgen"],
          args: [
            "--ca-generate=true",
            "--ca-reuse-secret",
            `--ca-secret-namespace=${namespace}`,
            "--ca-secret-name=cilium-ca",
            "--ca-common-name=Cilium CA",
            ...shape.certgenArgs,
          ],
          env: [{ name: "CILIUM_CERTGEN_CONFIG", value: certgenConfig(spec, namespace) }],
        },
      ],
      hostNetwork: false,
      ...(shape.jobsExpire && { serviceAccount: CERTGEN }),
      serviceAccountName: CERTGEN,
      automountServiceAccountToken: true,
      restartPolicy: "OnFailure",
      tolerations: ANY_NODE_TOLERATIONS,
    },
  };
}

/**
 * The first run, as a Job named after its spec's checksum, as the chart names it from 1.19 on: a Job's pod
 * template cannot change, so a new spec is a new Job; the old one, finished, stays in the cluster.
 */
function certgenJob(spec: CiliumSpec, namespace: string, shape: Shape): K8sObject {
  // No TTL, though the 1.18 chart sets one: a Job deleted half an hour after it ran would be created again by
  // the next pulumi up after a refresh. Its CronJob's jobs expire as the chart's do.
  const jobSpec = { template: certgenPod(spec, namespace, shape) };
  const checksum = createHash("sha256").update(JSON.stringify(jobSpec)).digest("hex").slice(0, 10);
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: `${CERTGEN}-${checksum}`, namespace, labels: labelled(CERTGEN) },
    spec: jobSpec,
  };
}

/** The renewal: every four months, a year's certificates from the same CA. */
function certgenCronJob(spec: CiliumSpec, namespace: string, shape: Shape): K8sObject {
  return {
    apiVersion: "batch/v1",
    kind: "CronJob",
    metadata: { name: CERTGEN, namespace, labels: labelled(CERTGEN) },
    spec: {
      schedule: "0 0 1 */4 *",
      ...(!shape.jobsExpire && { successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 }),
      concurrencyPolicy: "Forbid",
      jobTemplate: {
        spec: {
          template: certgenPod(spec, namespace, shape),
          ...(shape.jobsExpire && { ttlSecondsAfterFinished: 1800 }),
        },
      },
    },
  };
}

/** What certgen may do: create Secrets, and update only the ones it writes; read and update its CA. */
function certgenRbac(namespace: string): K8sObject[] {
  return [
    { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: CERTGEN, namespace } },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: { name: CERTGEN, namespace, labels: PART_OF },
      rules: [
        { apiGroups: [""], resources: ["secrets"], verbs: ["create"] },
        {
          apiGroups: [""],
          resources: ["secrets"],
          resourceNames: [
            "hubble-server-certs",
            "hubble-relay-client-certs",
            "hubble-relay-server-certs",
            "hubble-metrics-server-certs",
            "hubble-ui-client-certs",
          ],
          verbs: ["update"],
        },
        { apiGroups: [""], resources: ["secrets"], resourceNames: ["cilium-ca"], verbs: ["get", "update"] },
      ],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name: CERTGEN, namespace, labels: PART_OF },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: CERTGEN },
      subjects: [{ kind: "ServiceAccount", name: CERTGEN, namespace }],
    },
  ];
}

/** The agents' Hubble servers behind one Service, each node's answering for that node only. */
function peerService(namespace: string): K8sObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: "hubble-peer",
      namespace,
      labels: { "k8s-app": "cilium", ...PART_OF, "app.kubernetes.io/name": "hubble-peer" },
    },
    spec: {
      selector: { "k8s-app": "cilium" },
      ports: [{ name: "peer-service", port: HUBBLE_PEER_SERVICE, protocol: "TCP", targetPort: HUBBLE_SERVER }],
      internalTrafficPolicy: "Local",
    },
  };
}

/** The relay's configuration, as the chart writes it (its empty keys keep the relay's defaults). */
function relayConfig(spec: CiliumSpec, namespace: string): string {
  return [
    `cluster-name: ${ciliumClusterName(spec.clusterName)}`,
    `peer-service: "hubble-peer.${namespace}.svc.cluster.local.:${HUBBLE_PEER_SERVICE}"`,
    "listen-address: :4245",
    "gops: true",
    'gops-port: "9893"',
    "retry-timeout: ",
    "sort-buffer-len-max: ",
    "sort-buffer-drain-timeout: ",
    "tls-hubble-client-cert-file: /var/lib/hubble-relay/tls/client.crt",
    "tls-hubble-client-key-file: /var/lib/hubble-relay/tls/client.key",
    "tls-hubble-server-ca-files: /var/lib/hubble-relay/tls/hubble-server-ca.crt",
    "",
    "disable-server-tls: true",
    "",
  ].join("\n");
}

const grpcProbe = { grpc: { port: 4222 } };

function relayDeployment(namespace: string, shape: Shape): K8sObject {
  const labels = labelled("hubble-relay");
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "hubble-relay", namespace, labels },
    spec: {
      replicas: 1,
      selector: { matchLabels: { "k8s-app": "hubble-relay" } },
      strategy: { rollingUpdate: { maxUnavailable: 1 }, type: "RollingUpdate" },
      template: {
        metadata: { labels },
        spec: {
          securityContext: { fsGroup: 65532, seccompProfile: { type: "RuntimeDefault" } },
          containers: [
            {
              name: "hubble-relay",
              securityContext: {
                allowPrivilegeEscalation: false,
                capabilities: { drop: ["ALL"] },
                runAsGroup: 65532,
                runAsNonRoot: true,
                runAsUser: 65532,
                seccompProfile: { type: "RuntimeDefault" },
                ...(shape.relayReadOnlyRoot && { readOnlyRootFilesystem: true }),
              },
              image: shape.relayImage,
              imagePullPolicy: "IfNotPresent",
              command: ["hubble-relay"],
              args: ["serve"],
              ports: [{ name: "grpc", containerPort: 4245 }],
              readinessProbe: { ...grpcProbe, timeoutSeconds: 3 },
              livenessProbe: {
                ...grpcProbe,
                timeoutSeconds: 10,
                initialDelaySeconds: 10,
                periodSeconds: 10,
                failureThreshold: 12,
              },
              startupProbe: { ...grpcProbe, initialDelaySeconds: 10, failureThreshold: 20, periodSeconds: 3 },
              volumeMounts: [
                { name: "config", mountPath: "/etc/hubble-relay", readOnly: true },
                { name: "tls", mountPath: "/var/lib/hubble-relay/tls", readOnly: true },
                ...(shape.relayReadOnlyRoot ? [{ name: "tmp-volume", mountPath: "/tmp" }] : []),
              ],
              terminationMessagePolicy: "FallbackToLogsOnError",
            },
          ],
          restartPolicy: "Always",
          serviceAccountName: "hubble-relay",
          automountServiceAccountToken: false,
          terminationGracePeriodSeconds: 1,
          // Next to an agent: the relay reaches the other nodes' agents through the peer service.
          affinity: {
            podAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: [
                { labelSelector: { matchLabels: { "k8s-app": "cilium" } }, topologyKey: "kubernetes.io/hostname" },
              ],
            },
          },
          nodeSelector: { "kubernetes.io/os": "linux" },
          tolerations: ANY_NODE_TOLERATIONS,
          volumes: [
            {
              name: "config",
              configMap: { name: "hubble-relay-config", items: [{ key: "config.yaml", path: "config.yaml" }] },
            },
            {
              name: "tls",
              projected: {
                defaultMode: 0o400,
                sources: [
                  {
                    secret: {
                      name: "hubble-relay-client-certs",
                      items: [
                        { key: "tls.crt", path: "client.crt" },
                        { key: "tls.key", path: "client.key" },
                        { key: "ca.crt", path: "hubble-server-ca.crt" },
                      ],
                    },
                  },
                ],
              },
            },
            ...(shape.relayReadOnlyRoot ? [{ name: "tmp-volume", emptyDir: {} }] : []),
          ],
        },
      },
    },
  };
}

function relayObjects(spec: CiliumSpec, namespace: string, shape: Shape) {
  const labels = labelled("hubble-relay");
  return {
    foundation: [
      {
        apiVersion: "v1",
        kind: "ServiceAccount",
        metadata: { name: "hubble-relay", namespace },
        automountServiceAccountToken: false,
      },
      {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "hubble-relay-config", namespace },
        data: { "config.yaml": relayConfig(spec, namespace) },
      },
      {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "hubble-relay", namespace, labels },
        spec: {
          type: "ClusterIP",
          selector: { "k8s-app": "hubble-relay" },
          ports: [{ protocol: "TCP", port: 80, targetPort: "grpc" }],
        },
      },
    ],
    workloads: [relayDeployment(namespace, shape)],
  };
}

const hubbleOf = (spec: CiliumSpec) => spec.networking.cilium.hubble;

const ANY_NODE =
  "pulumi up waits for the relay to be ready and for certgen's first run to complete: like the other add-ons' " +
  "pods, both run on a node the cloud controller has not initialised yet, and on the control plane, since a " +
  "cluster may have no worker yet (every group at minSize 0).";

export const hubble: CiliumFeature = {
  name: "hubble",
  schema: {
    hubble: {
      kind: "object",
      description:
        "Hubble, Cilium's flow observability (docs/cilium.md, Hubble). Its TLS certificates are made in the " +
        "cluster by Cilium's `certgen` (a Job, renewed every four months by a CronJob), never in Pulumi's state.",
      fields: {
        enabled: {
          kind: "boolean",
          default: false,
          description:
            "Runs Hubble's server in every agent, on port 4244 of each node, behind the `hubble-peer` Service.",
        },
        relay: {
          kind: "boolean",
          default: false,
          description:
            "Runs Hubble Relay (`hubble-relay` in `kube-system`, port 80), which gathers every node's flows for " +
            "the `hubble` CLI.",
          rules: ["requires `hubble.enabled: true`"],
          // The relay gathers the agents' Hubble servers: without them it has nothing to connect to. Whoever
          // asked for the relay wants Hubble, so the fix turns Hubble on rather than the relay off.
          requires: [
            {
              path: "networking.cilium.hubble.enabled",
              equals: true,
              detail: "Hubble Relay requires Hubble (hubble.enabled: true)",
              fix: "require",
            },
          ],
        },
      },
    },
  },
  managedKeys: Object.fromEntries(
    [
      "enable-hubble",
      "hubble-listen-address",
      "hubble-disable-tls",
      "hubble-tls-cert-file",
      "hubble-tls-key-file",
      "hubble-tls-client-ca-files",
    ].map((key) => [key, "networking.cilium.hubble.enabled"]),
  ),
  config: (spec): Record<string, string> =>
    hubbleOf(spec).enabled
      ? {
          "enable-hubble": "true",
          "hubble-socket-path": "/var/run/cilium/hubble.sock",
          "hubble-network-policy-correlation-enabled": "true",
          "hubble-listen-address": `:${HUBBLE_SERVER}`,
          "hubble-disable-tls": "false",
          "hubble-tls-cert-file": `${TLS_DIR}/server.crt`,
          "hubble-tls-key-file": `${TLS_DIR}/server.key`,
          "hubble-tls-client-ca-files": `${TLS_DIR}/client-ca.crt`,
        }
      : {},
  agent: (spec) =>
    hubbleOf(spec).enabled
      ? {
          ports: lineShape(spec).agentPeerPort
            ? [{ name: "peer-service", containerPort: HUBBLE_SERVER, hostPort: HUBBLE_SERVER, protocol: "TCP" }]
            : [],
          volumeMounts: [{ name: "hubble-tls", mountPath: TLS_DIR, readOnly: true }],
          volumes: [
            {
              name: "hubble-tls",
              projected: {
                defaultMode: 0o400,
                sources: [
                  {
                    // Optional: the agent starts before certgen's first run has written it.
                    secret: {
                      name: "hubble-server-certs",
                      optional: true,
                      items: [
                        { key: "tls.crt", path: "server.crt" },
                        { key: "tls.key", path: "server.key" },
                        { key: "ca.crt", path: "client-ca.crt" },
                      ],
                    },
                  },
                ],
              },
            },
          ],
        }
      : { ports: [], volumeMounts: [], volumes: [] },
  objects: (spec, { namespace, release }) => {
    if (!hubbleOf(spec).enabled) return { foundation: [], workloads: [] };
    const shape = shapeOf(spec, release);
    const relay = hubbleOf(spec).relay ? relayObjects(spec, namespace, shape) : { foundation: [], workloads: [] };
    return {
      foundation: [...certgenRbac(namespace), peerService(namespace), ...relay.foundation],
      workloads: [...relay.workloads, certgenJob(spec, namespace, shape), certgenCronJob(spec, namespace, shape)],
    };
  },
  chartValues: (spec) =>
    hubbleOf(spec).enabled
      ? { hubble: { enabled: true, relay: { enabled: hubbleOf(spec).relay }, tls: { auto: { method: "cronJob" } } } }
      : {},
  intendedDifferences: [
    { path: "Deployment/hubble-relay spec.template.spec.tolerations*", reason: ANY_NODE },
    { path: "Job/hubble-generate-certs spec.template.spec.tolerations*", reason: ANY_NODE },
    {
      path: "Job/hubble-generate-certs spec.ttlSecondsAfterFinished",
      reason:
        "The first run's Job stays once it has run, as the charts after 1.18 keep it: deleted, it would be " +
        "created again by the next pulumi up after a refresh.",
    },
    { path: "CronJob/hubble-generate-certs spec.jobTemplate.spec.template.spec.tolerations*", reason: ANY_NODE },
  ],
  cases: {
    on: {
      Hubble: { networking: { cilium: { hubble: { enabled: true } } } },
      "Hubble with its relay": { networking: { cilium: { hubble: { enabled: true, relay: true } } } },
    },
    off: { networking: { cilium: { hubble: { enabled: false, relay: false } } } },
  },
};
