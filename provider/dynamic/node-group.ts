// The node group resource's provider, as the module Pulumi's state names (see provider/shim.ts).
import { forwardingProvider } from "../shim";

export = forwardingProvider("node-group");
