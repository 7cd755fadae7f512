/** Getting onto a node without SSH: the SSM agent on every node. */
import type { Feature } from "../feature";
import { sessionManager } from "./sessionManagerRights";

export const sessionManagerFeature: Feature = { name: "session-manager", rights: [sessionManager] };
