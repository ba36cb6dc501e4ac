package main

import (
	"github.com/pulumi-gpucloud/pulumi-gpucloud/sdk/go/gpucloud"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

// A GPU instance rented by query under a price cap, with a data volume and a lifetime.
func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cfg := config.New(ctx, "")
		maxDollarsPerHour := pulumi.Float64(cfg.RequireFloat64("maxDollarsPerHour"))

		// Offers come and go as others rent them: an instance is rented by query, the cheapest
		// match under the price cap.
		offerQuery := gpucloud.OfferQueryArgs{
			GpuRamGb:    gpucloud.QueryNumberArgs{Gte: pulumi.Float64(24)},
			Reliability: gpucloud.QueryNumberArgs{Gte: pulumi.Float64(0.95)},
		}

		// A local volume lives on one machine: ForInstance places it where the instance can be
		// rented.
		data, err := gpucloud.NewVolume(ctx, "data", &gpucloud.VolumeArgs{
			VolumeOfferQuery: gpucloud.VolumeOfferQueryArgs{
				DiskSpaceGb: gpucloud.QueryNumberArgs{Gte: pulumi.Float64(100)},
			},
			SizeGb: pulumi.Int(50),
			ForInstance: &gpucloud.VolumeForInstanceArgs{
				OfferQuery:        offerQuery,
				MaxDollarsPerHour: maxDollarsPerHour,
			},
		})
		if err != nil {
			return err
		}

		gpu, err := gpucloud.NewInstance(ctx, "gpu", &gpucloud.InstanceArgs{
			OfferQuery:        offerQuery,
			MaxDollarsPerHour: maxDollarsPerHour,
			// Destroyed at the deadline by the instance itself, with nobody running Pulumi.
			MaxLifetime: pulumi.String(cfg.Require("maxLifetime")),
			Image:       pulumi.String("pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime"),
			DiskGb:      pulumi.Float64(40),
			Volume: &gpucloud.InstanceVolumeArgs{
				VolumeId:  data.VolumeId,
				MountPath: pulumi.String("/workspace/data"),
			},
			Onstart: pulumi.String("nvidia-smi"),
		})
		if err != nil {
			return err
		}

		ctx.Export("sshHost", gpu.SshHost)
		ctx.Export("sshPort", gpu.SshPort)
		ctx.Export("expiresAt", gpu.ExpiresAt)
		return nil
	})
}
