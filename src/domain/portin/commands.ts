// The port-in commands as they arrive (Avro-decoded: an absent optional field is null) and as they leave
// validation (normalised: defaults applied, nulls dropped). Field names exactly as service-spec.md 2.4–2.8.

export type Maybe<T> = T | null | undefined;

export interface Address {
  addressLine1?: Maybe<string>;
  addressLine2?: Maybe<string>;
  city?: Maybe<string>;
  state?: Maybe<string>;
  zip?: Maybe<string>;
}

export interface Contact {
  isBusinessType?: Maybe<boolean>;
  /** UpdatePortIn and QueryPortIn only. */
  businessName?: Maybe<string>;
  namePrefix?: Maybe<string>;
  firstName?: Maybe<string>;
  middleName?: Maybe<string>;
  lastName?: Maybe<string>;
  nameSuffix?: Maybe<string>;
  additionalTitle?: Maybe<string>;
}

export interface Location {
  portAddress?: Maybe<Address>;
  /** QueryPortIn only. */
  activationAddress?: Maybe<Address>;
}

/** Port information (2.5). The same shape serves create (portInfo), update (updatePortInfo) and query. */
export interface PortInfo {
  authorizationName?: Maybe<string>;
  accountNo?: Maybe<string>;
  /** CreatePortIn only. */
  newNumLocalSP?: Maybe<string>;
  pwdPin?: Maybe<string>;
  termsCondition?: Maybe<string>;
  contact?: Maybe<Contact>;
  location?: Maybe<Location>;
}

export interface ProductChange {
  productId: string;
  action: string;
  characteristics: { key: string; value: string }[];
}

export interface CreatePortInCommand {
  partnerTransactionId: string;
  subscriberId: string;
  wholesalePlanId: string;
  bucketRefId: string[];
  eSIMDeliveryMethod?: 'QR';
  billCycleFrequency: 'MONTHLY';
  /** Absent when the partner left it to us: the handler fills the submission day (at most 28). */
  billCycleStartDay?: number;
  gpsi: string;
  iccid?: string;
  pei?: string;
  eid?: string;
  products: ProductChange[];
  portInfo: PortInfo;
  /** The due date the partner asks for (ISO 8601 UTC, normalised); absent: the earliest allowed. */
  desiredDueDate?: string;
}

export interface UpdatePortInCommand {
  partnerTransactionId: string;
  gpsi: string;
  updatePortInfo: PortInfo;
  /** A new due date the partner asks for; with an empty updatePortInfo the supplement changes only it. */
  desiredDueDate?: string;
}

/** A supplement that changes only the due date (lifecycle trigger UpdateDueDate). */
export const changesOnlyDueDate = (command: UpdatePortInCommand): boolean => command.desiredDueDate !== undefined && Object.keys(command.updatePortInfo).length === 0;

export interface CancelPortInCommand {
  partnerTransactionId?: string;
  gpsi?: string;
}

export interface QueryPortInCommand {
  gpsi?: string;
  partnerTransactionId?: string;
  portOrderId?: string;
}
