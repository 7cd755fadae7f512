# health.sh: a node that has not joined by its deadline tells its Auto Scaling group, which replaces it
# (EC2 health checks alone call an instance healthy whatever its bootstrap did).

report_unhealthy() {
  local id
  id=$(imds instance-id)
  log "instance $id has not joined the cluster by its deadline: reporting it unhealthy"
  retry aws autoscaling set-instance-health --region "$REGION" --instance-id "$id" \
    --health-status Unhealthy --no-should-respect-grace-period
}
