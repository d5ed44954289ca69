/**
 * The live /api/v1 contract (live-contract.ts) through the Shoonya adapter against its loopback stub
 * (its rig: live-rigs-fyers-noren.ts), on each database the run covers.
 */
import { describeEachDb } from '../helpers/test-app.js';
import { liveBrokerContract } from './live-contract.js';
import { rigs } from './live-rigs.js';

describeEachDb('the live /api/v1 contract through Shoonya', (dialect) =>
  liveBrokerContract(rigs.shoonya, dialect),
);
