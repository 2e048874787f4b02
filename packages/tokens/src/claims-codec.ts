/**
 * The binary form of allocation claims, shared by the token formats:
 *   allocationId(16) campaignId(4) publisherId(4) campaignOwnerAccountId(8) publisherOwnerAccountId(8)
 *   issuedAtSeconds(6) = 46 bytes
 */
import type { AllocationClaims } from './claims';

export const CLAIMS_BYTES = 46;

export function encodeClaims(claims: AllocationClaims): Buffer {
  const bytes = Buffer.alloc(CLAIMS_BYTES);
  Buffer.from(claims.allocationId.replace(/-/g, ''), 'hex').copy(bytes, 0);
  bytes.writeUInt32BE(claims.campaignId, 16);
  bytes.writeUInt32BE(claims.publisherId, 20);
  bytes.writeBigUInt64BE(BigInt(claims.campaignOwnerAccountId), 24);
  bytes.writeBigUInt64BE(BigInt(claims.publisherOwnerAccountId), 32);
  bytes.writeUIntBE(Math.floor(claims.issuedAt.getTime() / 1000), 40, 6);
  return bytes;
}

export function decodeClaims(bytes: Buffer): AllocationClaims {
  return {
    allocationId: uuidOf(bytes.subarray(0, 16)),
    campaignId: bytes.readUInt32BE(16),
    publisherId: bytes.readUInt32BE(20),
    campaignOwnerAccountId: bytes.readBigUInt64BE(24).toString(),
    publisherOwnerAccountId: bytes.readBigUInt64BE(32).toString(),
    issuedAt: new Date(bytes.readUIntBE(40, 6) * 1000),
  };
}

function uuidOf(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
