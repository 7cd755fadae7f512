"""Creates in the emulator what a plan (`npm run plan -- --out DIR`) declares that nodes and controllers
read: the VPC, subnets and security groups with their tags, the KMS key and its alias, the SSM parameters
(the images the plan pins), the backup bucket with its default encryption, the bootstrap bucket with each
group's installer, the
instance profiles, the
internal API load balancer with its target group, the termination handler's queue and the EventBridge rules
that send to it, and the launch templates and Auto Scaling groups with their lifecycle hooks, whose instances
moto launches. The plan's user data goes into the launch templates as the
program encodes it (gzip, base64)."""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path
from typing import Any

import boto3


def _kind(resource_type: str) -> str:
    return resource_type.split(":")[2].lower()


def _mock_id(resource: dict[str, Any]) -> str:
    return f"mock-{_kind(resource['type'])}-{resource['name']}"


# The account of the plan (cli/plan/mocks.ts's MOCK_ACCOUNT): its ARNs, and the user data's, name it.
PLAN_ACCOUNT = "000000000000"


def _mock_arn(resource: dict[str, Any], service: str) -> str:
    return f"arn:aws:{service}:us-east-1:{PLAN_ACCOUNT}:{resource['type'].split(':')[2]}/{resource['name']}"


def _tags(inputs: dict[str, Any]) -> list[dict[str, str]]:
    return [{"Key": k, "Value": v} for k, v in (inputs.get("tags") or {}).items()]


def encode_user_data(text: str) -> str:
    """components/nodes/userDataEncoding.ts: gzip (no name, no time) in base64."""
    return base64.b64encode(gzip.compress(text.encode(), mtime=0)).decode()


class Declared:
    def __init__(self, plan: Path, endpoint: str):
        self.plan = plan
        self.resources: list[dict[str, Any]] = json.loads((plan / "resources.json").read_text())
        session = boto3.Session(aws_access_key_id="box", aws_secret_access_key="box", region_name="us-east-1")
        self._client = lambda service: session.client(service, endpoint_url=endpoint)
        self.ids: dict[str, str] = {}
        # Launch template id → the role of its instance profile (what instance metadata names).
        self.roles: dict[str, str] = {}

    def of_type(self, suffix: str) -> list[dict[str, Any]]:
        return [r for r in self.resources if r["type"].endswith(suffix)]

    def _resolve(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.ids.get(value, value)
        if isinstance(value, list):
            return [self._resolve(v) for v in value]
        if isinstance(value, dict):
            return {k: self._resolve(v) for k, v in value.items()}
        return value

    def _carried(self, folder: str, name: str, suffix: str) -> str:
        """A script --out writes as a file of its own (cli/plan/artifacts.ts), by its resource's name."""
        safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in name)
        return (self.plan / folder / f"{safe}{suffix}").read_text()

    def _user_data(self, name: str) -> str:
        return self._carried("userdata", name, ".txt")

    def declare(self) -> None:
        ec2, ssm, kms, iam = (self._client(s) for s in ("ec2", "ssm", "kms", "iam"))
        for vpc in self.of_type(":Vpc"):
            created = ec2.create_vpc(CidrBlock=vpc["inputs"]["cidrBlock"])["Vpc"]["VpcId"]
            self.ids[_mock_id(vpc)] = created
        for subnet in self.of_type(":Subnet"):
            i = self._resolve(subnet["inputs"])
            created = ec2.create_subnet(
                VpcId=i["vpcId"],
                CidrBlock=i["cidrBlock"],
                AvailabilityZone=i["availabilityZone"],
                TagSpecifications=[{"ResourceType": "subnet", "Tags": _tags(i)}],
            )["Subnet"]["SubnetId"]
            self.ids[_mock_id(subnet)] = created
        for group in self.of_type(":SecurityGroup"):
            i = self._resolve(group["inputs"])
            created = ec2.create_security_group(
                GroupName=i["name"],
                Description=i["description"],
                VpcId=i["vpcId"],
                TagSpecifications=[{"ResourceType": "security-group", "Tags": _tags(i)}],
            )["GroupId"]
            self.ids[_mock_id(group)] = created
        for key in self.of_type("kms/key:Key"):
            created = kms.create_key(Description=key["inputs"].get("description", ""))["KeyMetadata"]
            self.ids[_mock_arn(key, "kms")] = created["Arn"]
        for alias in self.of_type("kms/alias:Alias"):
            i = self._resolve(alias["inputs"])
            kms.create_alias(AliasName=i["name"], TargetKeyId=i["targetKeyId"])
        for parameter in self.of_type("ssm/parameter:Parameter"):
            i = self._resolve(parameter["inputs"])
            # The images the plan pins: the program declares no other parameter (the cluster's keys are made
            # and stored by its first control-plane node).
            ssm.put_parameter(Name=i["name"], Type=i["type"], Value=i["insecureValue"])
        s3 = self._client("s3")
        for bucket in self.of_type("s3/bucket:Bucket"):
            s3.create_bucket(Bucket=bucket["inputs"]["bucket"])
            self.ids[_mock_id(bucket)] = bucket["inputs"]["bucket"]
        for encryption in self.of_type("s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration"):
            i = self._resolve(encryption["inputs"])
            rules = [
                {
                    "ApplyServerSideEncryptionByDefault": {
                        "SSEAlgorithm": r["applyServerSideEncryptionByDefault"]["sseAlgorithm"],
                        **(
                            {"KMSMasterKeyID": r["applyServerSideEncryptionByDefault"]["kmsMasterKeyId"]}
                            if "kmsMasterKeyId" in r["applyServerSideEncryptionByDefault"]
                            else {}
                        ),
                    },
                    "BucketKeyEnabled": r.get("bucketKeyEnabled", False),
                }
                for r in i["rules"]
            ]
            s3.put_bucket_encryption(Bucket=i["bucket"], ServerSideEncryptionConfiguration={"Rules": rules})
        # Each group's installer, which its loader (the user data) fetches: the text --out wrote.
        for installer in self.of_type("s3/bucketObjectv2:BucketObjectv2"):
            i = self._resolve(installer["inputs"])
            group = installer["name"].removesuffix("-bootstrap")
            s3.put_object(Bucket=i["bucket"], Key=i["key"], Body=self._carried("bootstrap", group, ".sh").encode())
        for profile in self.of_type("iam/instanceProfile:InstanceProfile"):
            i = profile["inputs"]
            iam.create_role(RoleName=i["role"], AssumeRolePolicyDocument="{}")
            iam.create_instance_profile(InstanceProfileName=i["name"])
            iam.add_role_to_instance_profile(InstanceProfileName=i["name"], RoleName=i["role"])
        # The other roles (the cluster's admin role): what a test assumes as an admin would.
        profiled = {p["inputs"]["role"] for p in self.of_type("iam/instanceProfile:InstanceProfile")}
        for role in self.of_type("iam/role:Role"):
            i = role["inputs"]
            if i["name"] not in profiled:
                iam.create_role(RoleName=i["name"], Path=i.get("path", "/"), AssumeRolePolicyDocument="{}")
        self._load_balancers()
        self._interruption_queue()
        self._groups()

    def _interruption_queue(self) -> None:
        """The termination handler's queue, and the rules that send it the events it drains nodes for."""
        sqs, events = self._client("sqs"), self._client("events")
        for queue in self.of_type("sqs/queue:Queue"):
            i = queue["inputs"]
            sqs.create_queue(
                QueueName=i["name"],
                Attributes={
                    "MessageRetentionPeriod": str(i["messageRetentionSeconds"]),
                    "SqsManagedSseEnabled": str(i.get("sqsManagedSseEnabled", False)).lower(),
                    "Policy": i["policy"],
                },
                tags=i.get("tags") or {},
            )
        for rule in self.of_type("cloudwatch/eventRule:EventRule"):
            i = rule["inputs"]
            events.put_rule(Name=i["name"], EventPattern=i["eventPattern"], Description=i["description"])
        for target in self.of_type("cloudwatch/eventTarget:EventTarget"):
            i = target["inputs"]
            events.put_targets(Rule=i["rule"], Targets=[{"Id": i["targetId"], "Arn": i["arn"]}])

    def _load_balancers(self) -> None:
        elb = self._client("elbv2")
        for group in self.of_type("lb/targetGroup:TargetGroup"):
            i = self._resolve(group["inputs"])
            created = elb.create_target_group(
                Name=i["name"], Protocol=i["protocol"], Port=i["port"], VpcId=i["vpcId"], TargetType=i["targetType"]
            )["TargetGroups"][0]["TargetGroupArn"]
            self.ids[_mock_arn(group, "lb")] = created
        for balancer in self.of_type("lb/loadBalancer:LoadBalancer"):
            i = self._resolve(balancer["inputs"])
            if not i.get("internal"):
                continue
            created = elb.create_load_balancer(
                Name=i["name"], Subnets=i["subnets"], SecurityGroups=i["securityGroups"], Scheme="internal", Type="network"
            )["LoadBalancers"][0]["LoadBalancerArn"]
            self.ids[_mock_arn(balancer, "lb")] = created
        for listener in self.of_type("lb/listener:Listener"):
            i = self._resolve(listener["inputs"])
            if i["loadBalancerArn"].startswith(f"arn:aws:lb:us-east-1:{PLAN_ACCOUNT}:"):
                continue  # the public load balancer: nothing in the box reaches the API from outside
            elb.create_listener(
                LoadBalancerArn=i["loadBalancerArn"],
                Protocol=i["protocol"],
                Port=i["port"],
                DefaultActions=[{"Type": "forward", "TargetGroupArn": a["targetGroupArn"]} for a in i["defaultActions"]],
            )

    def internal_target_groups(self) -> list[str]:
        """The target groups of the internal API load balancer's listeners (what api.internal reaches)."""
        internal = {
            _mock_arn(b, "lb") for b in self.of_type("lb/loadBalancer:LoadBalancer") if b["inputs"].get("internal")
        }
        return [
            self.ids[a["targetGroupArn"]]
            for listener in self.of_type("lb/listener:Listener")
            if listener["inputs"]["loadBalancerArn"] in internal
            for a in listener["inputs"]["defaultActions"]
        ]

    def _groups(self) -> None:
        ec2, autoscaling = self._client("ec2"), self._client("autoscaling")
        for template in self.of_type("ec2/launchTemplate:LaunchTemplate"):
            i = self._resolve(template["inputs"])
            data = {
                "ImageId": i["imageId"],
                "InstanceType": i["instanceType"],
                "IamInstanceProfile": {"Name": i["iamInstanceProfile"]["name"]},
                "UserData": encode_user_data(self._user_data(template["name"])),
                "SecurityGroupIds": i.get("vpcSecurityGroupIds", []),
                "MetadataOptions": {"HttpTokens": "required", "HttpPutResponseHopLimit": 1, "HttpEndpoint": "enabled"},
                "TagSpecifications": [
                    {"ResourceType": spec["resourceType"], "Tags": _tags(spec)}
                    for spec in i.get("tagSpecifications", [])
                    if spec["resourceType"] in ("instance", "volume", "network-interface")
                ],
            }

            created = ec2.create_launch_template(LaunchTemplateName=i["name"], LaunchTemplateData=data)
            self.ids[_mock_id(template)] = created["LaunchTemplate"]["LaunchTemplateId"]
            profiles = {p["inputs"]["name"]: p["inputs"]["role"] for p in self.of_type("iam/instanceProfile:InstanceProfile")}
            self.roles[created["LaunchTemplate"]["LaunchTemplateId"]] = profiles[i["iamInstanceProfile"]["name"]]
        for group in self.of_type("autoscaling/group:Group"):
            i = self._resolve(group["inputs"])
            hooks = [
                {
                    "LifecycleHookName": h["name"],
                    "LifecycleTransition": h["lifecycleTransition"],
                    "HeartbeatTimeout": h["heartbeatTimeout"],
                    "DefaultResult": h["defaultResult"],
                }
                for h in i.get("initialLifecycleHooks", [])
            ]
            # Empty first, its hooks, then its size: moto takes no LifecycleHookSpecificationList, and every
            # instance must meet the launch hook, as in AWS.
            autoscaling.create_auto_scaling_group(
                AutoScalingGroupName=i["name"],
                MinSize=0,
                MaxSize=i["maxSize"],
                DesiredCapacity=0,
                LaunchTemplate={"LaunchTemplateId": i["launchTemplate"]["id"], "Version": "$Latest"},
                VPCZoneIdentifier=",".join(i["vpcZoneIdentifiers"]),
                TargetGroupARNs=i.get("targetGroupArns", []),
                Tags=[
                    {"Key": t["key"], "Value": t["value"], "PropagateAtLaunch": t.get("propagateAtLaunch", False)}
                    for t in i.get("tags", [])
                ],
            )
            for hook in hooks:
                autoscaling.put_lifecycle_hook(AutoScalingGroupName=i["name"], **hook)
            autoscaling.update_auto_scaling_group(
                AutoScalingGroupName=i["name"], MinSize=i["minSize"], DesiredCapacity=i.get("desiredCapacity", i["minSize"])
            )
