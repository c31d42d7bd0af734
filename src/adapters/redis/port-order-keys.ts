/** A port order's key: its own hash tag (owner and orderId), so orders spread over a Cluster's slots. */
export const portOrderKey = (prefix: string, owner: string, orderId: string): string => `${prefix}portorder:{${owner}:${orderId}}`;

/** Hash: partnerTransactionId -> orderId, the order each of the owner's numbers was created in. */
export const portOrderMembersKey = (prefix: string, owner: string): string => `${prefix}portorder:members:{${owner}}`;

/** Set: the partnerTransactionIds of an order's numbers that reached a settled status (the order's tag). */
export const portOrderSettledKey = (prefix: string, owner: string, orderId: string): string => `${prefix}portorder:{${owner}:${orderId}}:settled`;
