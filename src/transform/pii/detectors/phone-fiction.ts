import type { PhoneNumber } from 'libphonenumber-js/max';

/**
 * Ofcom's ranges for drama and examples (UK numbers no line will ever have), as national
 * significant numbers: the 7-digit start, then any three digits. libphonenumber leaves some of
 * them out of its metadata (07700 900xxx is not a valid mobile to it) because no line has them,
 * yet to a reader they are phone numbers like any other, and documents that must not show a real
 * number (examples, test data, fiction) use exactly these.
 */
const ofcomDramaPrefixes = new Set([
  '1134960', // Leeds
  '1144960', // Sheffield
  '1154960', // Nottingham
  '1164960', // Leicester
  '1174960', // Bristol
  '1184960', // Reading
  '1214960', // Birmingham
  '1314960', // Edinburgh
  '1414960', // Glasgow
  '1514960', // Liverpool
  '1614960', // Manchester
  '1914980', // Tyneside
  '2079460', // London
  '2896496', // Northern Ireland
  '2920180', // Cardiff
  '1632960', // no area
  '7700900', // mobile
  '8081570', // freephone
  '9098790', // premium rate
  '3069990', // UK-wide
]);

export function isFictionalUkNumber(number: PhoneNumber): boolean {
  const nsn = number.nationalNumber;
  return number.countryCallingCode === '44' && nsn.length === 10 && ofcomDramaPrefixes.has(nsn.slice(0, 7));
}
