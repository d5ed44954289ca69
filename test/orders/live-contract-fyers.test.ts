/**
 * The live /api/v1 contract (live-contract.ts) through the Fyers adapter against its loopback stub
 * (its rig: live-rigs-fyers-noren.ts), on each database the run covers.
 */
import { describeEachDb } from '../helpers/test-app.js';
import { liveBrokerContract } from './live-contract.js';
import { rigs } from './live-rigs.js';

describeEachDb('the live /api/v1 contract through Fyers', (dialect) =>
  liveBrokerContract(rigs.fyers, dialect),
);
