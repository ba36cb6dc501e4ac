"""A GPU instance rented by query under a price cap, with a data volume and a lifetime."""

import pulumi
import pulumi_gpucloud as gpucloud

config = pulumi.Config()
max_dollars_per_hour = config.require_float("maxDollarsPerHour")

# Offers come and go as others rent them: an instance is rented by query, the cheapest match
# under the price cap.
offer_query = gpucloud.OfferQueryArgs(
    gpu_ram_gb=gpucloud.QueryNumberArgs(gte=24),
    reliability=gpucloud.QueryNumberArgs(gte=0.95),
)

# A local volume lives on one machine: for_instance places it where the instance can be rented.
data = gpucloud.Volume(
    "data",
    volume_offer_query=gpucloud.VolumeOfferQueryArgs(disk_space_gb=gpucloud.QueryNumberArgs(gte=100)),
    size_gb=50,
    for_instance=gpucloud.VolumeForInstanceArgs(
        offer_query=offer_query, max_dollars_per_hour=max_dollars_per_hour
    ),
)

gpu = gpucloud.Instance(
    "gpu",
    offer_query=offer_query,
    max_dollars_per_hour=max_dollars_per_hour,
    # Destroyed at the deadline by the instance itself, with nobody running Pulumi.
    max_lifetime=config.require("maxLifetime"),
    image="pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime",
    disk_gb=40,
    volume=gpucloud.InstanceVolumeArgs(volume_id=data.volume_id, mount_path="/workspace/data"),
    onstart="nvidia-smi",
)

pulumi.export("sshHost", gpu.ssh_host)
pulumi.export("sshPort", gpu.ssh_port)
pulumi.export("expiresAt", gpu.expires_at)
