import { getBatchOperation } from '../common/chargedBatch';

export const { description, execute } = getBatchOperation('interview', 'interviews');
