// A GPU workspace in Go: the same stack as examples/yaml-workspace, through the Go SDK generated
// from the native plugin's schema (see Pulumi.yaml).
package main

import (
	"github.com/pulumi-gpucloud/pulumi-gpucloud/sdk/go/gpucloud"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cfg := config.New(ctx, "")
		hfToken := cfg.RequireSecret("hfToken")
		// Seconds between status polls while the instance boots.
		pollIntervalSeconds := 3.0
		if v, err := cfg.TryFloat64("pollIntervalSeconds"); err == nil {
			pollIntervalSeconds = v
		}

		// Account secrets become environment variables of every instance of the account.
		hfTokenSecret, err := gpucloud.NewSecret(ctx, "hfTokenSecret", &gpucloud.SecretArgs{
			Key:   pulumi.String("HF_TOKEN"),
			Value: hfToken,
		})
		if err != nil {
			return err
		}

		// Asks (offers) come and go as other people rent them: find them by query, not by id.
		// Typed: the compiler rejects a misspelled field or operator.
		trainerQuery := gpucloud.OfferQueryArgs{
			GpuName:     gpucloud.QueryTextArgs{In: pulumi.StringArray{pulumi.String("RTX 4090"), pulumi.String("RTX 3090")}},
			GpuRamGb:    gpucloud.QueryNumberArgs{Gte: pulumi.Float64(24)},
			Reliability: gpucloud.QueryNumberArgs{Gte: pulumi.Float64(0.95)},
		}
		maxDollarsPerHour := pulumi.Float64(1)

		// A local volume lives on one machine, and the instance that mounts it is rented there:
		// ForInstance puts it on a machine where the trainer can be rented under its cap.
		data, err := gpucloud.NewVolume(ctx, "data", &gpucloud.VolumeArgs{
			VolumeOfferQuery: gpucloud.VolumeOfferQueryArgs{
				DiskSpaceGb: gpucloud.QueryNumberArgs{Gte: pulumi.Float64(100)},
				Reliability: gpucloud.QueryNumberArgs{Gte: pulumi.Float64(0.95)},
			},
			SizeGb: pulumi.Int(50),
			ForInstance: &gpucloud.VolumeForInstanceArgs{
				OfferQuery:        trainerQuery,
				MaxDollarsPerHour: maxDollarsPerHour,
			},
		})
		if err != nil {
			return err
		}

		// The cheapest matching offer on the volume's machine; another one is rented when one
		// ends in a dead end.
		trainer, err := gpucloud.NewInstance(ctx, "trainer", &gpucloud.InstanceArgs{
			OfferQuery:        trainerQuery,
			MaxDollarsPerHour: maxDollarsPerHour,
			Volume: &gpucloud.InstanceVolumeArgs{
				VolumeId:  data.VolumeId,
				MountPath: pulumi.String("/workspace/data"),
			},
			Image:  pulumi.String("pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime"),
			DiskGb: pulumi.Float64(40),
			Label:  pulumi.String("go-workspace"),
			Onstart: pulumi.String(`#!/bin/bash
set -euo pipefail
# HF_TOKEN comes from the account's secrets.
test -n "${HF_TOKEN:-}" || { echo "HF_TOKEN is not set" >&2; exit 1; }
test -d /workspace/data || { echo "the data volume is not mounted" >&2; exit 1; }
echo "ready: volume ${DATA_VOLUME} at /workspace/data"
`),
			Env: pulumi.StringMap{
				"DATA_VOLUME": data.VolumeName,
				// The name of the account secret the script relies on.
				"REQUIRED_SECRETS": hfTokenSecret.Key,
			},
			PollIntervalSeconds: pulumi.Float64(pollIntervalSeconds),
		})
		if err != nil {
			return err
		}

		user, err := gpucloud.GetCurrentUser(ctx, &gpucloud.GetCurrentUserArgs{})
		if err != nil {
			return err
		}

		ctx.Export("secretKey", hfTokenSecret.Key)
		ctx.Export("volumeName", data.VolumeName)
		ctx.Export("instanceId", trainer.InstanceId)
		ctx.Export("sshHost", trainer.SshHost)
		ctx.Export("sshPort", trainer.SshPort)
		ctx.Export("gpuRamMb", trainer.GpuRamMb)
		ctx.Export("userId", pulumi.Int(user.Id))
		return nil
	})
}
