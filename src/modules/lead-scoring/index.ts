/**
 * Lead scoring's public surface: the job handler, the daily retraining's schedule, and what
 * tests and other modules read of the model.
 */
export { leadScoringJobHandler } from './scoring-job';
export { runScoreTrainingSchedule, scheduleDailyRetraining, scheduleRetraining } from './training-schedule';
export { currentModel, retrainModel, MIN_LOST, MIN_WON } from './model';
export { fitLogistic, predict } from './logistic';
export { DEFAULT_FEATURES, DEFAULT_INTERCEPT, FEATURES } from './features';
