import type { Address, Contact, Location, PortInfo } from './commands';

/**
 * pwdPin and accountNo are secrets: they go to the NP side in clear (the old provider checks them), are
 * kept apart from the stored portInfo only while the port may still need them, and are never returned.
 * Masks have a fixed width so they do not reveal the secret's length.
 */
export interface PortSecrets {
  pwdPin?: string;
  accountNo?: string;
}

export const MASK = '****';

export const maskPin = (_pin: string): string => MASK;

/** The last four characters of a long account number help the partner tell accounts apart; short ones are hidden whole. */
export const maskAccountNo = (accountNo: string): string => (accountNo.length >= 8 ? `${MASK}${accountNo.slice(-4)}` : MASK);

/** Splits the secrets off portInfo: the returned portInfo carries only their masks. */
export function separateSecrets(info: PortInfo): { portInfo: PortInfo; secrets: PortSecrets } {
  const { pwdPin, accountNo, ...rest } = info;
  const portInfo: PortInfo = { ...rest };
  const secrets: PortSecrets = {};
  if (typeof pwdPin === 'string') {
    portInfo.pwdPin = maskPin(pwdPin);
    secrets.pwdPin = pwdPin;
  }
  if (typeof accountNo === 'string') {
    portInfo.accountNo = maskAccountNo(accountNo);
    secrets.accountNo = accountNo;
  }
  return { portInfo, secrets };
}

/** The portInfo the NP side needs: masks replaced by the secrets still held. */
export function revealSecrets(info: PortInfo, secrets: PortSecrets): PortInfo {
  const revealed: PortInfo = { ...info };
  if (secrets.pwdPin !== undefined) revealed.pwdPin = secrets.pwdPin;
  if (secrets.accountNo !== undefined) revealed.accountNo = secrets.accountNo;
  return revealed;
}

const given = <T extends object>(patch: T | null | undefined): Partial<T> => Object.fromEntries(Object.entries(patch ?? {}).filter(([, v]) => v !== null && v !== undefined)) as Partial<T>;

const mergeAddress = (base: Address | null | undefined, patch: Address | null | undefined): Address | undefined => (base || patch ? { ...given(base), ...given(patch) } : undefined);

/**
 * A supplement's updatePortInfo applied to the request's portInfo: members given replace those held,
 * members left out keep their value; contact, location and addresses merge member by member.
 */
export function mergePortInfo(base: PortInfo, patch: PortInfo): PortInfo {
  const merged: PortInfo = { ...given(base), ...given(patch) };
  if (base.contact || patch.contact) merged.contact = { ...given<Contact>(base.contact), ...given<Contact>(patch.contact) };
  if (base.location || patch.location) {
    const location: Location = {};
    const portAddress = mergeAddress(base.location?.portAddress, patch.location?.portAddress);
    const activationAddress = mergeAddress(base.location?.activationAddress, patch.location?.activationAddress);
    if (portAddress) location.portAddress = portAddress;
    if (activationAddress) location.activationAddress = activationAddress;
    merged.location = location;
  }
  return merged;
}
