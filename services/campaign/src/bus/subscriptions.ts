/**
 * Every subscription of the campaign service: none. The service only publishes, through its outbox:
 * campaign.submitted, campaign.approved, campaign.rejected, campaign.activated, campaign.paused
 * (see src/domain/campaign.ts TRANSITIONS and src/use-cases/campaigns.ts transition()).
 */
export {};
