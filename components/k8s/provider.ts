/**
 * The cluster's one Kubernetes provider, created once by the program and handed to every add-on through
 * `providers`: the program's admin kubeconfig, a stable `clusterIdentifier` (a computed kubeconfig never
 * forces replacements), server-side apply, and ConfigMaps updated in place rather than replaced.
 */
import { Provider } from "@pulumi/kubernetes/provider";
import type * as pulumi from "@pulumi/pulumi";

export interface ClusterProviderArgs {
  clusterName: string;
  kubeconfig: pulumi.Input<string>;
}

export function clusterProvider(name: string, args: ClusterProviderArgs, opts: pulumi.CustomResourceOptions): Provider {
  return new Provider(
    name,
    {
      kubeconfig: args.kubeconfig,
      clusterIdentifier: args.clusterName,
      enableServerSideApply: true,
      enableConfigMapMutable: true,
    },
    opts,
  );
}
