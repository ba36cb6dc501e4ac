"""A GPU workspace in Python: the same stack as examples/yaml-workspace, through the Python SDK
generated from the gpucloud plugin's schema (see Pulumi.yaml)."""

import pulumi
import pulumi_gpucloud as gpucloud

config = pulumi.Config()
hf_token = config.require_secret("hfToken")
# Seconds between status polls while the instance boots.
poll_interval_seconds = config.get_float("pollIntervalSeconds") or 3

# Account secrets become environment variables of every instance of the account.
hf_token_secret = gpucloud.Secret("hfTokenSecret", key="HF_TOKEN", value=hf_token)

# Asks (offers) come and go as other people rent them: find them by query, not by id. Typed:
# an editor completes the fields and operators, and mypy checks them (a dict of the same
# snake_case names, gpucloud.OfferQueryArgsDict, is checked alike).
trainer_query = gpucloud.OfferQueryArgs(
    gpu_name=gpucloud.QueryTextArgs(in_=["RTX 4090", "RTX 3090"]),
    gpu_ram_gb=gpucloud.QueryNumberArgs(gte=24),
    reliability=gpucloud.QueryNumberArgs(gte=0.95),
)
max_dollars_per_hour = 1

# A local volume lives on one machine, and the instance that mounts it is rented there:
# for_instance puts it on a machine where the trainer can be rented under its cap.
data = gpucloud.Volume(
    "data",
    volume_offer_query={"disk_space_gb": {"gte": 100}, "reliability": {"gte": 0.95}},
    size_gb=50,
    for_instance=gpucloud.VolumeForInstanceArgs(
        offer_query=trainer_query, max_dollars_per_hour=max_dollars_per_hour
    ),
)

# The cheapest matching offer on the volume's machine; another one is rented when one ends in
# a dead end.
trainer = gpucloud.Instance(
    "trainer",
    offer_query=trainer_query,
    max_dollars_per_hour=max_dollars_per_hour,
    volume=gpucloud.InstanceVolumeArgs(volume_id=data.volume_id, mount_path="/workspace/data"),
    image="pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime",
    disk_gb=40,
    label="python-workspace",
    onstart="""#!/bin/bash
set -euo pipefail
# HF_TOKEN comes from the account's secrets.
test -n "${HF_TOKEN:-}" || { echo "HF_TOKEN is not set" >&2; exit 1; }
test -d /workspace/data || { echo "the data volume is not mounted" >&2; exit 1; }
echo "ready: volume ${DATA_VOLUME} at /workspace/data"
""",
    env={
        "DATA_VOLUME": data.volume_name,
        # The name of the account secret the script relies on.
        "REQUIRED_SECRETS": hf_token_secret.key,
    },
    poll_interval_seconds=poll_interval_seconds,
)

user = gpucloud.get_current_user()

pulumi.export("secretKey", hf_token_secret.key)
pulumi.export("volumeName", data.volume_name)
pulumi.export("instanceId", trainer.instance_id)
pulumi.export("sshHost", trainer.ssh_host)
pulumi.export("sshPort", trainer.ssh_port)
pulumi.export("gpuRamMb", trainer.gpu_ram_mb)
pulumi.export("userId", user.id)
