/** A port order's key: its own hash tag (owner and orderId), so orders spread over a Cluster's slots. */
export const portOrderKey = (prefix: string, owner: string, orderId: string): string => `${prefix}portorder:{${owner}:${orderId}}`;
