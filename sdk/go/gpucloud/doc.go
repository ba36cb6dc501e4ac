// Manage a GPU cloud's volumes, secrets, webhooks, GPU instances, SSH keys, API keys and serverless endpoints as code.
package gpucloud
