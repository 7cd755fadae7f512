// The Kubernetes layer's declaration: the preview-time shape and the final render joined by object
// identity, and a declarable kind for every kind an add-on renders, each with a schema model.
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { expect } from "chai";
import { join } from "path";
import { renderCiliumManifests } from "../../components/cilium/ciliumManifests";
import { DECLARABLE_KINDS, declareObjects, joinByKey, logicalNames } from "../../components/k8s/declare";
import { throughProvider } from "../../components/k8s/delivery";
import { K8sObject, objectKey } from "../../components/k8s/object";
import { examples, PROJECT_DIR } from "../../cli/plan/examples";
import { loadStackConfig, toRuntimeConfig } from "../../cli/plan/stackConfig";
import { readRawConfig } from "../../config/read";
import { validateConfig } from "../../components/clusterConfigValidation";
import { SCHEMA_MODELS } from "../k8sSchemas";

const configMap = (name: string, namespace: string, data: Record<string, string> = {}): K8sObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace },
  data,
});

const valueOf = <T>(output: pulumi.Output<T>): Promise<T> => new Promise((resolve) => output.apply(resolve));

describe("the Kubernetes layer's declaration", () => {
  it("keys objects by kind, namespace and name", () => {
    expect(objectKey(configMap("a", "kube-system"))).to.equal("ConfigMap/kube-system/a");
    expect(objectKey({ apiVersion: "v1", kind: "Namespace", metadata: { name: "a" } })).to.equal("Namespace//a");
  });

  it("joins the two renders by identity, whatever their order", () => {
    const shape = [configMap("a", "x"), configMap("a", "y"), configMap("b", "x")];
    const rendered = [
      configMap("b", "x", { v: "3" }),
      configMap("a", "y", { v: "2" }),
      configMap("a", "x", { v: "1" }),
    ];
    const joined = joinByKey(shape, rendered);
    expect(shape.map((o) => (joined.get(objectKey(o))!.data as { v: string }).v)).to.deep.equal(["1", "2", "3"]);
  });

  it("refuses renders that differ in their objects, naming them", () => {
    const shape = [configMap("a", "x"), configMap("b", "x")];
    expect(() => joinByKey(shape, [configMap("a", "x"), configMap("c", "x")])).to.throw(
      /only at declaration \[ConfigMap\/x\/b\], only in the final render \[ConfigMap\/x\/c\]/,
    );
    expect(() => joinByKey(shape, [configMap("a", "x"), configMap("b", "x"), configMap("b", "x")])).to.throw(
      /duplicate keys/,
    );
  });

  it("declares each object with its own fields when the final render comes in another order", async () => {
    await pulumi.runtime.setMocks(
      {
        newResource: (args) => ({ id: `${args.name}-id`, state: args.inputs }),
        call: () => ({}),
      },
      "project",
      "stack",
      false,
    );
    const shape = [configMap("first", "kube-system"), configMap("second", "kube-system")];
    // Computed, as the real render is until the API endpoint is known.
    const rendered = pulumi
      .output("api.example")
      .apply((): K8sObject[] => [
        configMap("second", "kube-system", { which: "second" }),
        configMap("first", "kube-system", { which: "first" }),
      ]);
    const declared = declareObjects("test", shape, rendered, {}) as k8s.core.v1.ConfigMap[];
    const names = await Promise.all(declared.map((r) => valueOf(r.metadata.name)));
    const data = await Promise.all(declared.map((r) => valueOf(r.data)));
    expect(names).to.deep.equal(["first", "second"]);
    expect(data).to.deep.equal([{ which: "first" }, { which: "second" }]);
  });

  it("names objects of one kind and name in two namespaces apart, in any stage, keeping the first's name", async () => {
    const names: string[] = [];
    await pulumi.runtime.setMocks(
      {
        newResource: (args) => {
          names.push(args.name);
          return { id: `${args.name}-id`, state: args.inputs };
        },
        call: () => ({}),
      },
      "project",
      "stack",
      false,
    );
    const stage = (...objects: K8sObject[]) => ({
      shape: objects,
      rendered: pulumi.output("rendered").apply((): readonly K8sObject[] => objects),
    });
    const parent = new pulumi.ComponentResource("test:index:Addon", "addon");
    throughProvider.declare(
      "addon",
      [stage(configMap("a", "kube-system"), configMap("b", "kube-system")), stage(configMap("a", "cilium-secrets"))],
      parent,
    );
    await new Promise((r) => setTimeout(r, 100));
    expect(names.sort()).to.deep.equal([
      "addon",
      "addon-configmap-a",
      "addon-configmap-b",
      "addon-configmap-cilium-secrets/a",
    ]);
  });

  it("keeps the name of every object an example's add-on renders: only duplicates take the longer form", () => {
    for (const example of examples()) {
      const { raw, region } = readRawConfig(
        toRuntimeConfig(loadStackConfig(join(PROJECT_DIR, "Pulumi.yaml"), example.file)),
      );
      const manifests = renderCiliumManifests(validateConfig(raw, region).spec, "api.example");
      const objects = [...manifests.foundation, ...manifests.workloads];
      const names = logicalNames("cilium", objects);
      for (const o of objects) {
        expect(names.get(objectKey(o)), example.name).to.equal(`cilium-${o.kind.toLowerCase()}-${o.metadata.name}`);
      }
    }
  });

  it("has a typed resource class and a schema model for every kind an example renders", () => {
    const modelled = new Set(Object.keys(SCHEMA_MODELS).map((k) => k.split("/").pop()));
    for (const kind of DECLARABLE_KINDS) expect(modelled.has(kind), kind).to.equal(true);
    for (const example of examples()) {
      const { raw, region } = readRawConfig(
        toRuntimeConfig(loadStackConfig(join(PROJECT_DIR, "Pulumi.yaml"), example.file)),
      );
      const manifests = renderCiliumManifests(validateConfig(raw, region).spec, "api.example");
      for (const o of [...manifests.foundation, ...manifests.workloads]) {
        expect(DECLARABLE_KINDS, `${example.name}: ${o.kind}`).to.include(o.kind);
      }
    }
  });
});
