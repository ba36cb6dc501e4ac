// The network volume resource's provider, as the module Pulumi's state names (see
// provider/shim.ts).
import { forwardingProvider } from "../shim";

export = forwardingProvider("network-volume");
