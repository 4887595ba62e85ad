import type { Icon, ICredentialType, INodeProperties } from 'n8n-workflow';

// During a rotation both secrets sign each delivery, so the previous one is kept here until the rotation ends.
export class RecruitingAnalysisSigningSecretApi implements ICredentialType {
	name = 'recruitingAnalysisSigningSecretApi';

	displayName = 'Recruiting Analysis Webhook Signing Secret API';

	icon: Icon = { light: 'file:recruitingAnalysis.svg', dark: 'file:recruitingAnalysis.dark.svg' };

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-recruiting-analysis#webhook-setup';

	properties: INodeProperties[] = [
		{
			displayName: 'Signing Secret',
			name: 'secret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			placeholder: 'whsec_...',
			description:
				'The signing secret shown once when the webhook endpoint was created in the Recruiting Analysis application (Settings > Developer > Webhooks): whsec_ followed by base64 of at least 16 bytes',
		},
		{
			displayName: 'Previous Signing Secret',
			name: 'previousSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			placeholder: 'whsec_...',
			description:
				'Only during a secret rotation: the secret being replaced. Deliveries signed with either secret are accepted. Clear it once the rotation is over.',
		},
	];
}
