/**
 * L2-regularised logistic regression on standardised features, fitted by Newton's method
 * (iteratively reweighted least squares). Small on purpose: a scoring model has a handful of
 * features and at most a few tens of thousands of outcomes, so a dense Newton step (a k×k
 * solve) converges in a few iterations and needs no library.
 *
 * Objective: mean log-loss + (λ/2)·‖w‖² over the standardised weights (the intercept is not
 * penalised). Standardising first makes λ treat every feature alike, whatever its scale; the
 * weights are returned on the raw scale (w / std) with the means, so a contribution is
 * w·(x − mean) in log-odds, the explanation's unit.
 */

export interface FittedFeature {
  weight: number;
  mean: number;
  std: number;
}

export interface LogisticFit {
  intercept: number;
  features: FittedFeature[];
  iterations: number;
}

export const DEFAULT_L2 = 0.05;

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

/** Solves A·x = b (A symmetric positive definite here) by Gaussian elimination with partial pivoting. */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let row = col + 1; row < n; row++) if (Math.abs(m[row][col]) > Math.abs(m[pivot][col])) pivot = row;
    [m[col], m[pivot]] = [m[pivot], m[col]];
    const p = m[col][col] || 1e-12;
    for (let row = 0; row < n; row++) {
      if (row === col) continue;
      const factor = m[row][col] / p;
      for (let k = col; k <= n; k++) m[row][k] -= factor * m[col][k];
    }
  }
  return m.map((row, i) => row[n] / (m[i][i] || 1e-12));
}

/**
 * Fits P(y = 1 | x) = σ(b + Σ wᵢ·(xᵢ − meanᵢ)). `rows` are raw feature vectors, `outcomes` 1 (won)
 * or 0 (lost). A feature that does not vary in the sample gets weight 0.
 */
export function fitLogistic(rows: number[][], outcomes: number[], lambda = DEFAULT_L2): LogisticFit {
  const n = rows.length;
  const k = rows[0]?.length ?? 0;
  const mean = Array.from({ length: k }, (_, j) => rows.reduce((sum, row) => sum + row[j], 0) / n);
  const std = mean.map((m, j) => Math.sqrt(rows.reduce((sum, row) => sum + (row[j] - m) ** 2, 0) / n));
  const z = rows.map((row) => row.map((value, j) => (std[j] > 1e-9 ? (value - mean[j]) / std[j] : 0)));
  // beta[0] is the intercept, beta[1..k] the standardised weights.
  let beta = new Array(k + 1).fill(0);
  let iterations = 0;
  for (; iterations < 50; iterations++) {
    const gradient = new Array(k + 1).fill(0);
    const hessian = Array.from({ length: k + 1 }, () => new Array(k + 1).fill(0));
    for (let i = 0; i < n; i++) {
      const x = [1, ...z[i]];
      const p = sigmoid(x.reduce((sum, value, j) => sum + value * beta[j], 0));
      const weight = p * (1 - p);
      for (let a = 0; a <= k; a++) {
        gradient[a] += ((p - outcomes[i]) * x[a]) / n;
        for (let b = 0; b <= k; b++) hessian[a][b] += (weight * x[a] * x[b]) / n;
      }
    }
    for (let j = 1; j <= k; j++) {
      gradient[j] += lambda * beta[j];
      hessian[j][j] += lambda;
    }
    const step = solve(hessian, gradient);
    beta = beta.map((value, j) => value - step[j]);
    if (Math.max(...step.map(Math.abs)) < 1e-8) break;
  }
  return {
    intercept: beta[0],
    features: mean.map((m, j) => ({ weight: std[j] > 1e-9 ? beta[j + 1] / std[j] : 0, mean: m, std: std[j] })),
    iterations,
  };
}

/** P(won) of a raw feature vector under a fit, with each feature's contribution wᵢ·(xᵢ − meanᵢ). */
export function predict(fit: Pick<LogisticFit, 'intercept' | 'features'>, x: number[]) {
  const contributions = fit.features.map((feature, j) => feature.weight * (x[j] - feature.mean));
  const logit = fit.intercept + contributions.reduce((sum, c) => sum + c, 0);
  return { probability: sigmoid(logit), logit, contributions };
}
