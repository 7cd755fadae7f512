// The bootstrap script's header carries only what its group's script reads, and its hash covers only what
// the node is told: a field no module of a group reads rolls no node of that group.
import { expect } from "chai";
import { bootstrapConfig, BootstrapConfig } from "../../components/nodes/bootstrapConfig";
import { instanceGroups } from "../../components/nodes/instanceGroups";
import { configVariables, SHELL_DEFAULTS, SHELL_FACTS, SHELL_VARIABLES } from "../../components/nodes/shellHeader";
import { renderBootstrapScript, renderUserData } from "../../components/nodes/userData";
import { validateConfig } from "../../components/clusterConfigValidation";
import { baseConfig, REGION } from "../fixtures";

const spec = validateConfig(baseConfig(), REGION).spec;
const configOf = (role: BootstrapConfig["role"]) =>
  bootstrapConfig(
    spec,
    instanceGroups(spec).find((g) => g.role === role)!,
    { internal: "api.internal.test", public: "api.test", caParameter: "/cluster-ca" },
    {
      initRecord: "/record",
      restoreRequest: "/restore",
      backupBucket: "backups",
      encryptionKeys: "/encryption-keys",
      sharedPki: "/pki/",
      adminRoleArn: "arn:aws:iam::000000000000:role/admins.dev.k8s.local",
    },
  );
const worker = configOf("node");
const controlPlane = configOf("control-plane");

const hashOf = (userData: string) => /^\s*BOOTSTRAP_CONFIG_HASH='([^']+)'$/m.exec(userData)![1];
/** The header's variables: NAME=... lines before the first function. */
const headerNames = (script: string) =>
  [...script.split(/^\w+\(\) \{/m)[0].matchAll(/^\s*(?:readonly )?(\w+)=/gm)].map((m) => m[1]);

describe("the bootstrap script's header", () => {
  it("leaves a group's user data byte-identical when a field no module of the group reads is added", () => {
    for (const config of [worker, controlPlane]) {
      const added = { ...configVariables(config), UNREAD_BY_ANY_MODULE: "x" };
      expect(renderUserData(config, added), config.role).to.equal(renderUserData(config));
    }
  });

  it("writes a field a module of the group reads, and hashes it; a group that does not read it stays as it was", () => {
    // INIT_RECORD: read by control-plane.sh, which only the control plane carries.
    const told = (config: BootstrapConfig) => renderUserData(config, { ...configVariables(config), INIT_RECORD: "/x" });
    expect(told(controlPlane)).to.contain("INIT_RECORD='/x'");
    expect(hashOf(told(controlPlane))).not.to.equal(hashOf(renderUserData(controlPlane)));
    expect(told(worker)).to.equal(renderUserData(worker));
  });

  it("counts run_steps and what is rendered from the config into the units and kubeadm's configuration", () => {
    // run_steps logs the group's name, which no module reads.
    expect(headerNames(renderBootstrapScript(worker))).to.include("INSTANCE_GROUP");
    // The backup timer's interval is in its unit, and bounds a snapshot (etcd.sh): the control plane's
    // header carries it, a worker's does not; the hash covers it.
    const hourly = { ...controlPlane, backupIntervalMinutes: 60 };
    expect(headerNames(renderBootstrapScript(controlPlane))).to.include("BACKUP_INTERVAL_MINUTES");
    expect(headerNames(renderBootstrapScript(worker))).not.to.include("BACKUP_INTERVAL_MINUTES");
    expect(hashOf(renderUserData(hourly))).not.to.equal(hashOf(renderUserData(controlPlane)));
    // The service range is in kubeadm's init configuration only, which only the control plane carries.
    const range = (config: BootstrapConfig) => hashOf(renderUserData({ ...config, serviceCIDR: "10.200.0.0/16" }));
    expect(range(controlPlane)).not.to.equal(hashOf(renderUserData(controlPlane)));
    expect(range(worker)).to.equal(hashOf(renderUserData(worker)));
  });

  it("names each fact, default and config field by a variable of its own", () => {
    const names = [...Object.values(SHELL_VARIABLES), ...Object.keys(SHELL_FACTS), ...Object.keys(SHELL_DEFAULTS)];
    expect(new Set(names).size).to.equal(names.length);
  });

  it("carries the facts a group's script reads, as readonly variables, and no other", () => {
    const workerNames = headerNames(renderBootstrapScript(worker));
    const controlPlaneNames = headerNames(renderBootstrapScript(controlPlane));
    // etcd's port and the snapshot's key are the control plane's: a worker's script has no etcd code.
    for (const fact of ["ETCD_CLIENT_PORT", "LATEST_SNAPSHOT_KEY", "CONTROL_PLANE_TAG"]) {
      expect(controlPlaneNames, fact).to.include(fact);
      expect(workerNames, fact).not.to.include(fact);
    }
    expect(renderBootstrapScript(controlPlane)).to.contain(
      `readonly ETCD_CLIENT_PORT='${SHELL_FACTS.ETCD_CLIENT_PORT}'`,
    );
    // The credentials' issuer (node-credentials.sh) is the control plane's: what it signs and tags with stays
    // out of a worker's header. Both read where the credentials are and where kubeadm join finds its own.
    for (const name of ["NODE_ROLE_NAME", "NODE_TAG", "NODE_CREDENTIAL_SESSION_TAG", "NODE_CREDENTIAL_MINUTES"]) {
      expect(controlPlaneNames, name).to.include(name);
      expect(workerNames, name).not.to.include(name);
    }
    for (const name of ["NODE_CREDENTIALS_PREFIX", "JOIN_CREDENTIAL_FILE"]) {
      expect(controlPlaneNames, name).to.include(name);
      expect(workerNames, name).to.include(name);
    }
  });
});
