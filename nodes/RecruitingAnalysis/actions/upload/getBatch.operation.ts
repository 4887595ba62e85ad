import { getBatchOperation } from '../common/chargedBatch';

export const { description, execute } = getBatchOperation('upload', 'uploads');
