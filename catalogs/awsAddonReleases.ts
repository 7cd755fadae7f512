/**
 * The AWS add-ons' releases: the cloud controller manager per Kubernetes minor (its tag follows the minor),
 * the EBS CSI driver with its sidecars and aws-node-termination-handler, each with where it is shown to
 * exist. Images are pinned by tag: no digest could be verified here (registry.k8s.io and public.ecr.aws are
 * out of reach).
 */
import { parseSemver } from "./ciliumVersions";

export interface CloudControllerRelease {
  /** The Kubernetes minor (`1.NN`'s NN) the release is built for. */
  minor: number;
  /** `vX.Y.Z`. */
  version: string;
  source: string;
}

const CCM_CHART = "the published chart aws-cloud-controller-manager-0.0.11.tgz (appVersion v1.35.0)";
const KUBEONE = (at: string) => `kubermatic/kubeone's image table (pkg images, AwsCCM), ${at}`;

export const CLOUD_CONTROLLER_RELEASES: readonly CloudControllerRelease[] = [
  { minor: 30, version: "v1.30.7", source: KUBEONE("2025") },
  { minor: 31, version: "v1.31.5", source: KUBEONE("2025") },
  { minor: 32, version: "v1.32.5", source: KUBEONE("2025") },
  { minor: 33, version: "v1.33.0", source: KUBEONE("2025") },
  { minor: 34, version: "v1.34.0", source: KUBEONE("2026") },
  { minor: 35, version: "v1.35.0", source: CCM_CHART },
];

export const CLOUD_CONTROLLER_REPOSITORY = "registry.k8s.io/provider-aws/cloud-controller-manager";

/**
 * The release for a Kubernetes `X.Y.Z`: the one of its minor, else the previous minor's, which Kubernetes's
 * version-skew policy allows (a cloud controller manager may be one minor older than the API server).
 */
export function cloudControllerRelease(kubernetesVersion: string): CloudControllerRelease | undefined {
  const minor = parseSemver(kubernetesVersion)?.minor ?? -1;
  return (
    CLOUD_CONTROLLER_RELEASES.find((r) => r.minor === minor) ??
    CLOUD_CONTROLLER_RELEASES.find((r) => r.minor === minor - 1)
  );
}

/** The EBS CSI driver and the sidecars its chart runs beside it, as chart 2.64.0 pins them. */
export const EBS_CSI_RELEASE = {
  source: "the published chart aws-ebs-csi-driver-2.64.0.tgz (appVersion 1.64.0)",
  images: {
    driver: "public.ecr.aws/ebs-csi-driver/aws-ebs-csi-driver:v1.64.0",
    provisioner: "public.ecr.aws/csi-components/csi-provisioner:v6.3.0-eksbuild.4",
    attacher: "public.ecr.aws/csi-components/csi-attacher:v4.12.0-eksbuild.5",
    resizer: "public.ecr.aws/csi-components/csi-resizer:v2.2.1-eksbuild.3",
    livenessProbe: "public.ecr.aws/csi-components/livenessprobe:v2.19.0-eksbuild.5",
    nodeDriverRegistrar: "public.ecr.aws/csi-components/csi-node-driver-registrar:v2.17.0-eksbuild.5",
  },
} as const;

/**
 * aws-node-termination-handler, at the release kOps pins (`pkg/model/components/nodeterminationhandler.go`,
 * v1.25.5); its chart at that tag is aws-node-termination-handler 0.27.5.
 */
export const NODE_TERMINATION_HANDLER_RELEASE = {
  source:
    "kOps's default NodeTerminationHandler version; chart 0.27.5 at tag v1.25.5 of aws/aws-node-termination-handler",
  version: "1.25.5",
  image: "public.ecr.aws/aws-ec2/aws-node-termination-handler:v1.25.5",
} as const;

/**
 * aws-iam-authenticator, the API server's token webhook on the control plane (components/adminAccess): EKS
 * Distro's build of v0.7.13 for Kubernetes 1.35, the image kOps's `authentication.aws` add-on also takes from
 * EKS Distro (its default is `…/aws-iam-authenticator:v0.6.20-eks-1-30-7`).
 */
export const AWS_IAM_AUTHENTICATOR_RELEASE = {
  source: "EKS Distro 1.35 release 9 (public.ecr.aws/eks-distro), aws-iam-authenticator v0.7.13",
  version: "0.7.13",
  image: "public.ecr.aws/eks-distro/kubernetes-sigs/aws-iam-authenticator:v0.7.13-eks-1-35-9",
} as const;
