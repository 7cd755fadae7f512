/** Each worker's own join credential: the control plane's to write, the worker's to read. */
import type { Feature } from "../feature";
import { nodeCredentials } from "./nodeCredentialRights";

export const nodeCredentialsFeature: Feature = { name: "node-credentials", rights: [nodeCredentials] };
