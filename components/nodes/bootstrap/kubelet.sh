# kubelet.sh: per-node kubelet settings kubeadm cannot know: the instance as the kubelet's providerID (kOps
# sets it from instance metadata too), and max pods from the instance type's ENIs.

# max_pods ENIS IPS_PER_ENI RESERVED HOST_NETWORK: kOps's rule, every ENI's addresses but its primary one
# serve pods, less the RESERVED addresses Cilium keeps for itself (its router and health endpoint), plus the
# HOST_NETWORK pods (the Cilium agent, and kube-proxy when it runs), which take no address; at most 110.
max_pods() {
  local pods=$(($1 * ($2 - 1) - $3 + $4))
  if [ "$pods" -gt 110 ]; then pods=110; fi
  echo "$pods"
}

configure_kubelet() {
  local patch provider
  provider=$(provider_id)
  patch="providerID: $provider"
  if [ "$MAX_PODS_FROM_ENI_LIMITS" = true ]; then
    local type limits enis ips
    type=$(imds instance-type)
    limits=$(retry aws ec2 describe-instance-types --region "$REGION" --instance-types "$type" \
      --query 'InstanceTypes[0].NetworkInfo.[MaximumNetworkInterfaces,Ipv4AddressesPerInterface]' --output text)
    read -r enis ips <<<"$limits"
    patch+=$'\n'"maxPods: $(max_pods "$enis" "$ips" "$ENI_ADDRESSES_RESERVED_BY_CILIUM" "$HOST_NETWORK_PODS")"
  fi
  write_file "$PATCHES_DIRECTORY/kubeletconfiguration+merge.yaml" <<<"$patch"
  systemctl enable kubelet
}
