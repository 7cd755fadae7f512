/**
 * Every timeout of the program in one table: each wait, deadline, heartbeat and grace period it sets or
 * renders, what enforces it, and where it is used. The unit is in each name. Constants only; the code that
 * applies a value imports it from here, and tests/timeouts.test.ts checks how they fit together: the
 * `pulumi up` wait outlasts the longest legitimate replacement of a control-plane member.
 *
 * The waits of the node's bash (components/nodes/bootstrap/) are `bootstrapScripts`, which reach it as the
 * defaults in its script's header (components/nodes/shellHeader.ts). The scripts' other bounds (apt's lock
 * wait, kubeadm's own timeouts) lie within a bootstrap run and the join deadline, which bound them here.
 * Cilium's own settings (probes, agent options) follow its chart and stay in components/cilium.
 */
export const TIMEOUTS = {
  /** New nodes and their groups (components/nodes). */
  nodes: {
    /**
     * The join deadline: the launch lifecycle hook's heartbeat timeout (lifecycleHooks.ts), after which Auto
     * Scaling abandons and terminates an instance that has not joined and completed the hook. Packages,
     * images and kubeadm take about 5 minutes on a worker, `kubeadm init` about 8.
     */
    joinDeadlineSeconds: { "control-plane": 1200, node: 900 },
    /**
     * The instance refresh's warmup (nodeLaunchTemplate.ts): how long after a new instance is `InService`
     * (which it is only once it has joined) the refresh waits before it counts it healthy and replaces more:
     * the kubelet and the Cilium agent starting on the joined node.
     */
    instanceWarmupSeconds: 120,
    /** The Auto Scaling groups' health check grace period (nodeLaunchTemplate.ts). */
    healthCheckGracePeriodSeconds: { "control-plane": 900, node: 300 },
    /**
     * `pulumi up` does not wait for a group's instances to be in service (the provider's
     * `waitForCapacityTimeout`, 0 disables it): they are in service only once joined, minutes later, and the
     * control-plane member wait (`deploy.memberReplacement`) waits for what matters.
     */
    groupCapacityWaitSeconds: 0,
    /**
     * How long one run of the bootstrap service may take before systemd stops it and runs it again
     * (`TimeoutStartSec`, systemdUnits.ts): longer than its longest step, the join (kubeadm.sh's
     * `wait_for_api`, 15 minutes at most, and kubeadm's own timeouts: tests/timeouts.test.ts adds them up).
     */
    bootstrapRunMinutes: 40,
    /**
     * kubeadm's etcd calls on a joining control-plane node (JoinConfiguration `timeouts.etcdAPICall`, 2 minutes
     * by default): adding its member as a learner is retried while another node's learner waits for its
     * promotion (etcd takes one learner at a time: "too many learner members in cluster"), and its own
     * promotion while its etcd starts and catches up. Control-plane nodes that boot together queue there; on
     * a slow host the second one's 2 minutes ran out and its whole join started again.
     */
    etcdApiCallSeconds: 240,
    /** Seconds between two runs of a failed bootstrap (`RestartSec`). Each download and AWS call also backs off inside a run. */
    bootstrapRestartSeconds: 30,
    /** The kubelet's graceful node shutdown (kubeadmConfig.ts): pods, then critical pods, before the node powers off. */
    kubeletShutdownGracePeriodSeconds: 60,
    kubeletShutdownGracePeriodCriticalPodsSeconds: 20,
  },
  /**
   * A terminating node's drain by aws-node-termination-handler (components/drain, lifecycleHooks.ts), with
   * kOps's figures (`pkg/model/awsmodel/nodeterminationhandler.go`, its addon template).
   */
  drain: {
    /**
     * The drain hook's heartbeat timeout: how long Auto Scaling holds a terminating instance of any group
     * while the handler cordons and drains its node, before it goes on anyway (CONTINUE). Also the queue's
     * message retention: an event older than the hook's wait is moot. And how long a terminating
     * control-plane node's etcd-leave service waits for that drain before its member leaves anyway
     * (control-plane.sh `DRAIN_WAIT_SECONDS`).
     */
    hookHeartbeatSeconds: 300,
    /**
     * One drain's deadline (the handler's `NODE_TERMINATION_GRACE_PERIOD`, kubectl drain's timeout): a drain
     * that has not evicted every pod by then (a PodDisruptionBudget that allows no eviction, a pod that does
     * not end) fails, and the handler drains again when the event is visible in the queue again.
     */
    drainAttemptSeconds: 120,
    /** How long an event the handler received stays hidden from the next receive (`SQS_MSG_VISIBILITY_TIMEOUT_SEC`). */
    messageVisibilitySeconds: 20,
  },
  /** A terminating control-plane member (lifecycleHooks.ts). */
  etcd: {
    /**
     * The termination lifecycle hook's heartbeat timeout: how long Auto Scaling holds a terminating
     * control-plane instance while its etcd-leave service removes the member (bootstrap/control-plane.sh),
     * before it goes on anyway. The service sends a heartbeat every `etcdLeaveRetrySeconds` while it waits
     * for the node's drain and while the member cannot leave.
     */
    leaveHeartbeatSeconds: 300,
  },
  /** The waits of the node's bash (see above): defaults in its header, which tests override. */
  bootstrapScripts: {
    /**
     * lib.sh `retry`: at most `BOOTSTRAP_TRIES` tries, waiting `BOOTSTRAP_RETRY_DELAY` seconds, doubled after
     * each try up to `retryMaxDelaySeconds`.
     */
    retryTries: 8,
    retryFirstDelaySeconds: 2,
    retryMaxDelaySeconds: 60,
    /** kubeadm.sh `wait_for_api`: `API_WAIT_TRIES` looks at /readyz, each up to 5 s, `API_WAIT_INTERVAL` apart. */
    apiWaitTries: 60,
    apiWaitIntervalSeconds: 10,
    apiWaitAttemptSeconds: 5,
    /**
     * control-plane.sh `ETCD_LEAVE_RETRY_SECONDS`: a terminating member that has not left tries again this
     * often, each time with a heartbeat of its termination hook.
     */
    etcdLeaveRetrySeconds: 30,
    /**
     * control-plane.sh `TERMINATION_WATCH_SECONDS`: how often the etcd-leave service asks instance metadata
     * whether Auto Scaling is terminating the instance; the termination hook's wait starts then.
     */
    terminationWatchSeconds: 5,
    /**
     * control-plane.sh `during_member_join`: a control-plane node's launch hook gets a heartbeat every
     * `launchHeartbeatSeconds` while kubeadm join runs, if the join starts within one bootstrap run's bound
     * of boot (`nodes.bootstrapRunMinutes`): its join deadline never falls between etcd's promotion of its
     * member and the hook's completion, and a node whose joins keep failing is still abandoned.
     */
    launchHeartbeatSeconds: 60,
    /**
     * control-plane.sh `save_final_snapshot`: the cluster's last member, terminating, tries this many times to
     * save its snapshot before its instance goes.
     */
    finalSnapshotTries: 3,
    /**
     * etcd.sh `ETCD_COMMAND_SECONDS`: etcdctl's `--command-timeout` for membership and status calls. Not for
     * `snapshot save`, which etcdctl 3.6 also bounds by it: a snapshot may take as long as the backups'
     * interval (a 10-second bound stopped backups past about 1.2 GB).
     */
    etcdCommandSeconds: 10,
    /**
     * node-credentials.sh: the control plane looks for worker instances that wait for a credential this
     * often; a joining worker, once the API answers, reads its own as often, at most
     * `nodeCredentialWaitTries` times (join-credential.sh); and each credential is valid
     * `nodeCredentialMinutes`: a worker that does not join within it is abandoned by its launch hook first.
     */
    nodeCredentialsIntervalSeconds: 10,
    nodeCredentialWaitTries: 12,
    nodeCredentialMinutes: 60,
  },
  /** What `pulumi up` waits for (components/controlPlane/refreshWait.ts, components/k8s/apiReady.ts). */
  deploy: {
    /**
     * After each control-plane group: until its newest instance refresh has succeeded and, with
     * `addons.applyFrom: deployer`, the API answers `/readyz`. Covers a member's longest legitimate
     * replacement (tests/timeouts.test.ts): the new instance's join deadline and warmup, then the old one's
     * leaving (its termination hook) and shutdown.
     */
    memberReplacementSeconds: 3600,
    /** Between two DescribeInstanceRefreshes calls. */
    refreshPollSeconds: 15,
    /**
     * Nothing at all answering at the API (no refusal, no TLS, no HTTP) for this long is an API this
     * machine does not reach, not a slow one: the wait stops, saying what to do.
     */
    apiSilentLimitSeconds: 600,
    /** Between two requests to `/readyz`, and the most each may take. */
    apiPollSeconds: 10,
    apiAttemptSeconds: 5,
  },
  /** `npm run validate-cluster` (cli/clusterCheck/). */
  validate: {
    /** With `--wait`: between two checks of a cluster that is not healthy yet. */
    pollSeconds: 10,
    /** The most one request to the API server may take before the check counts it unanswered. */
    requestSeconds: 15,
  },
  /** `npm run restore-snapshot` (cli/restore/). */
  restoreSnapshot: {
    /**
     * How long it waits for one control-plane instance to go once terminated: its termination hook holds it
     * while its node drains and its member leaves, heartbeats extending it, the last one saving a final
     * snapshot (bootstrap/control-plane.sh).
     */
    instanceGoneSeconds: 30 * 60,
    /** Between two looks at the control-plane groups and the request. */
    pollSeconds: 10,
  },
  /** Add-ons applied by the control plane (`addons.applyFrom: controlPlane`, components/k8s). */
  addons: {
    /** `pulumi up` waits this long for a new association to succeed (delivery.ts). */
    associationSeconds: 1800,
    /** The SSM document step's own timeout, after which SSM stops the script (applyScript.ts). */
    applyStepSeconds: 1800,
    /** The script waits this long for its node's API server, polling every `localApiPollSeconds`. */
    localApiWaitSeconds: 1500,
    localApiPollSeconds: 10,
  },
} as const;
