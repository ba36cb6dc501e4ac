// The smallest useful program: one account secret, its value kept in encrypted config.
import * as pulumi from "@pulumi/pulumi";
import * as gpucloud from "pulumi-gpucloud";

const token = new gpucloud.Secret("hf-token", {
  key: "HF_TOKEN",
  value: new pulumi.Config().requireSecret("hfToken"),
});

export const key = token.key;
