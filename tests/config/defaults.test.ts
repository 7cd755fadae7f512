// Defaulting: what a config that leaves keys out becomes.
import { expect } from "chai";
import { applyDefaults } from "../../config/defaults";

describe("defaults", () => {
  it("fills every key left out", () => {
    const spec = applyDefaults({ clusterName: "a.b", network: { availabilityZones: ["us-east-1a"] } }, "us-east-1");
    expect(spec).to.deep.include({
      clusterName: "a.b",
      region: "us-east-1",
      kubernetesVersion: "1.35.4",
      cloudProvider: "aws",
      topology: "private",
      kubeProxy: { enabled: true },
      api: { loadBalancer: "public", access: ["0.0.0.0/0"] },
      controlPlane: {
        instanceType: "t3.medium",
        count: 1,
        rootVolumeSize: 64,
        imageId: "",
        backupIntervalMinutes: 15,
        backupRetentionDays: 30,
      },
      cloudLabels: {},
      iam: { permissionsBoundary: "", path: "/" },
      instanceMetadata: { hopLimit: 1 },
    });
    expect(spec.network).to.deep.equal({
      cidr: "10.0.0.0/16",
      availabilityZones: ["us-east-1a"],
      natGateways: "perZone",
      podCIDR: "100.96.0.0/11",
      serviceCIDR: "100.64.0.0/13",
    });
    expect(spec.networking.cilium).to.deep.equal({
      version: "v1.20.2",
      ipam: "",
      disableMasquerade: false,
      tunnel: "vxlan",
      enableNodePort: false,
      extraConfig: {},
    });
    expect(spec.nodeGroups).to.deep.equal([
      {
        name: "nodes",
        instanceType: "t3.large",
        minSize: 2,
        maxSize: 4,
        rootVolumeSize: 128,
        imageId: "",
        minHealthyPercentage: 90,
      },
    ]);
  });

  it("defaults the tunnel to native routing in ENI mode, and keeps an explicit choice", () => {
    const tunnel = (cilium: Record<string, unknown>) =>
      applyDefaults({ networking: { cilium } }, "r").networking.cilium.tunnel;
    expect(tunnel({ ipam: "eni" })).to.equal("disabled");
    expect(tunnel({ ipam: "crd" })).to.equal("vxlan");
    expect(tunnel({ ipam: "crd", tunnel: "geneve" })).to.equal("geneve");
  });

  it("fills the keys a node group leaves out", () => {
    const spec = applyDefaults({ nodeGroups: [{ name: "gpu", maxSize: 2 }] }, "r");
    expect(spec.nodeGroups[0]).to.include({
      name: "gpu",
      instanceType: "t3.large",
      minSize: 2,
      maxSize: 2,
      rootVolumeSize: 128,
    });
  });

  it("defaults Cilium to the newest recorded patch of the newest line that supports kubernetesVersion", () => {
    const version = (kubernetesVersion: string, cilium: Record<string, unknown> = {}) =>
      applyDefaults(
        {
          clusterName: "a.b",
          kubernetesVersion,
          networking: { cilium },
          network: { availabilityZones: ["us-east-1a"] },
        },
        "us-east-1",
      ).networking.cilium.version;
    expect(version("1.30.4")).to.equal("v1.18.14");
    expect(version("1.31.9"), "1.19 starts at 1.32").to.equal("v1.18.14");
    expect(version("1.32.9")).to.equal("v1.19.8");
    expect(version("1.34.1")).to.equal("v1.20.2");
    expect(version("1.36.0")).to.equal("v1.20.2");
    expect(version("1.29.0"), "no line supports it: validation reports kubernetesVersion").to.equal("");
    expect(version("1.32.9", { version: "v1.18.12" })).to.equal("v1.18.12");
  });
});
