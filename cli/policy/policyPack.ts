// The policy pack: `pulumi preview --policy-pack policy` (after `npm ci` in this folder).
import { PolicyPack } from "@pulumi/policy";
import { policies, stackPolicies } from "./guardRails";

new PolicyPack("cilium-cluster", { policies: [...policies, ...stackPolicies] });
