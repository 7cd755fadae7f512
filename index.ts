// The Pulumi program (Pulumi.yaml's main, run through ts-node with swc: an edit is what the next preview runs).
// It declares one Cluster from the stack config, held to what the stack's last update applied (its own
// outputs), and exports the cluster's outputs as the stack's.
import "./components/compileCache";
import * as pulumi from "@pulumi/pulumi";
import { appliedState } from "./components/appliedStateOutputs";
import { Cluster } from "./components/cluster";
import type { ClusterConfig } from "./config/types";
import { readRawConfig } from "./config/read";

export = async () => {
  const { raw } = readRawConfig(pulumi.runtime.allConfig());
  // Validated by the Cluster, every problem reported with its config path.
  const cluster = new Cluster("cluster", { config: raw as ClusterConfig, applied: await appliedState() });
  return cluster.outputs;
};
