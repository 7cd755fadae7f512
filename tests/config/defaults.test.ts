// Defaulting: what a config that leaves keys out becomes.
import { expect } from "chai";
import { applyDefaults } from "../../config/defaults";
import { CONFIG_TREE } from "../../config/schema";
import type { AnyField } from "../../config/schemaTypes";

describe("defaults", () => {
  it("fills every key left out with the schema's default, keeping what the config sets", () => {
    const spec = applyDefaults({ clusterName: "a.b", network: { availabilityZones: ["us-east-1a"] } }, "us-east-1");
    expect(spec).to.deep.include({ clusterName: "a.b", region: "us-east-1" });
    expect(spec.network.availabilityZones).to.deep.equal(["us-east-1a"]);
    // Every key of the schema is in the spec; one with a stated default holds it (the derived ones, the
    // tunnel and the Cilium version, have their own cases below), a list its default items completed.
    const unset = { clusterName: "a.b", availabilityZones: ["us-east-1a"] };
    const walk = (fields: Record<string, AnyField>, value: Record<string, unknown>, path: string): void => {
      for (const [key, field] of Object.entries(fields)) {
        const at = `${path}${key}`;
        expect(value, at).to.have.property(key);
        if (field.kind === "object") walk(field.fields, value[key] as Record<string, unknown>, `${at}.`);
        else if (field.kind === "array" && field.items.kind === "object" && field.default) {
          const items = value[key] as Record<string, unknown>[];
          expect(items, at).to.have.length(field.default.length);
          items.forEach((item, i) => {
            expect(item, `${at}[${i}]`).to.deep.include(field.default![i] as object);
            walk((field.items as { fields: Record<string, AnyField> }).fields, item, `${at}[${i}].`);
          });
        } else if ("default" in field && field.default !== undefined && !(key in unset)) {
          expect(value[key], at).to.deep.equal(field.default);
        } else if (field.kind === "map") expect(value[key], at).to.deep.equal({});
      }
    };
    walk(CONFIG_TREE, spec as unknown as Record<string, unknown>, "");
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
