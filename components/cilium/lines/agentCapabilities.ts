/** The agent container's capabilities in non-privileged mode, as the charts grant them. */
export const AGENT_CAPABILITIES_1_18 = [
  "CHOWN",
  "KILL",
  "NET_ADMIN",
  "NET_RAW",
  "IPC_LOCK",
  "SYS_MODULE",
  "SYS_ADMIN",
  "SYS_RESOURCE",
  "DAC_OVERRIDE",
  "FOWNER",
  "SETGID",
  "SETUID",
];

/** 1.19 adds `SYSLOG`. */
export const AGENT_CAPABILITIES_1_19 = [...AGENT_CAPABILITIES_1_18, "SYSLOG"];
