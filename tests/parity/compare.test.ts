// The parity comparison's own rules, each shown on a pair of objects.
import { expect } from "chai";
import { compareObjects, KubeObject } from "./compare";

const job = (name: string, image: string): KubeObject => ({
  kind: "Job",
  metadata: { name, namespace: "kube-system" },
  spec: { template: { spec: { containers: [{ name: "certgen", image }] } } },
});

describe("parity comparison", () => {
  it("reads a null field as absent, as the API server stores it", () => {
    const chart = { kind: "Service", metadata: { name: "s" }, spec: { type: "ClusterIP", annotations: null } };
    const program = { kind: "Service", metadata: { name: "s" }, spec: { type: "ClusterIP" } };
    expect(compareObjects([chart], [program]).differences).to.deep.equal([]);
    const other = { kind: "Service", metadata: { name: "s" }, spec: { type: "NodePort" } };
    expect(compareObjects([chart], [other]).differences.map((d) => d.path)).to.deep.equal(["Service/s spec.type"]);
  });

  it("compares Jobs named after their spec's checksum by the name before it, field by field", () => {
    const same = compareObjects([job("certs-4a8b800e16", "a")], [job("certs-93ac7cfc6f", "a")]);
    expect(same.differences).to.deep.equal([]);
    const changed = compareObjects([job("certs-4a8b800e16", "a")], [job("certs-93ac7cfc6f", "b")]);
    expect(changed.differences.map((d) => d.path)).to.deep.equal([
      "Job/certs spec.template.spec.containers[certgen].image",
    ]);
    const renamed = compareObjects([job("certs-4a8b800e16", "a")], [job("other-93ac7cfc6f", "a")]);
    expect(renamed.differences.map((d) => d.path)).to.deep.equal(["Job/certs", "Job/other"]);
  });
});
