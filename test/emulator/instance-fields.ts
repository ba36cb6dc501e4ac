/** The fields the service's OpenAPI description lists for an instance (show and v1 list rows). */
export const DOCUMENTED_FIELDS = [
  ...["id", "actual_status", "intended_status", "cur_state", "next_state", "label"],
  ...["template_id", "template_hash_id", "template_name", "image_uuid", "image_args"],
  ...["image_runtype", "extra_env", "onstart", "jupyter_token", "status_msg", "local_ipaddrs"],
  ...["ssh_host", "ssh_idx", "ssh_port", "machine_dir_ssh_port", "machine_id", "bundle_id"],
  ...["start_date", "end_date", "uptime_mins", "duration", "cpu_arch", "cpu_cores"],
  ...["cpu_cores_effective", "cpu_name", "cpu_ram", "cpu_util", "mem_limit", "mem_usage"],
  ...["vmem_usage", "gpu_name", "gpu_arch", "gpu_totalram", "gpu_ram", "gpu_util", "gpu_temp"],
  ...["gpu_frac", "gpu_lanes", "gpu_mem_bw", "bw_nvlink", "disk_name", "disk_space", "disk_bw"],
  ...["disk_util", "disk_usage", "direct_port_count", "direct_port_start", "direct_port_end"],
  ...["ports", "static_ip", "public_ipaddr", "geolocation", "verification", "rentable"],
  ...["host_id", "hosting_type", "min_bid", "is_bid", "dph_base", "dph_total", "dlperf"],
  ...["dlperf_per_dphtotal", "flops_per_dphtotal", "total_flops", "score", "reliability2"],
  ...["os_version", "mobo_name", "pci_gen", "pcie_bw", "num_gpus", "logo", "webpage", "search"],
  ...["instance", "storage_cost", "storage_total_cost", "vram_costperhour", "credit_balance"],
  ...["credit_discount", "credit_discount_max", "client_run_time", "host_run_time", "external"],
  ...["time_remaining", "time_remaining_isbid", "country_code", "volume_info"],
] as const;
