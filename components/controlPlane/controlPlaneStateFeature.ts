/** The control plane's state: departed members, the termination hook, backups and the init record. */
import type { Feature } from "../feature";
import { controlPlaneState } from "./controlPlaneStateAccess";

export const controlPlaneStateFeature: Feature = { name: "control-plane-state", rights: [controlPlaneState] };
