/** Every node's bootstrap: its secrets, its health report, and in ENI mode its instance type's limits. */
import type { Feature } from "../feature";
import { nodeBootstrap } from "./nodeBootstrapRights";

export const nodeBootstrapFeature: Feature = { name: "node-bootstrap", rights: [nodeBootstrap] };
