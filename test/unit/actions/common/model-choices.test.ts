/** Which saved option values leave a guard rail to the model: only a `$fromAI(` call, as n8n itself finds one. */
import { modelChosenGuardRails } from '../../../../nodes/RecruitingAnalysis/actions/common/modelChoices';

describe('guard rails are not the model’s', () => {
	it('names every guard-rail option whose value calls $fromAI, in any case and spacing n8n accepts', () => {
		expect(
			modelChosenGuardRails({
				spendingLimit: "={{ $fromAI('Spending_Limit', ``, 'number') }}",
				options: {
					attemptLabel: "={{ 'retry-' + $fromai ('n', 'x', 'number') }}",
					idempotencyKey: '={{ $FromAI(`key`) }}',
				},
			}),
		).toEqual(['Spending Limit (Credits)', 'New Attempt Label', 'Idempotency Key']);
	});

	it('leaves fixed values, expressions on workflow data and other options alone', () => {
		expect(
			modelChosenGuardRails({
				spendingLimit: 25,
				options: {
					attemptLabel: 'second-try',
					idempotencyKey: '={{ $json.applicationId }}',
					externalReferenceId: "={{ $fromAI('applicationId') }}",
				},
			}),
		).toEqual([]);
		expect(modelChosenGuardRails({})).toEqual([]);
		expect(modelChosenGuardRails({ options: [] })).toEqual([]);
	});
});
