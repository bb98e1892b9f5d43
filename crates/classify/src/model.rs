//! The page-kind model: multinomial logistic regression (softmax) with L2 regularisation on
//! standardised features, its training (L-BFGS, deterministic) and its JSON form; and the
//! [`Mixture`] the shipped file holds: a gate that tells a documentation generator's page from
//! the rest of the web, weighing one such model for each.
//!
//! Owns the numbers: fitting, scoring, per-feature contributions, and the file format of
//! `data/classifier.json` (class order, feature names, standardisation, weights; floats rounded to
//! [`DECIMALS`] decimals so a retrain reproduces the file byte for byte).
//!
//! Why a mixture: documentation generators and the rest of the web write pages of a kind in
//! opposite ways (a Sphinx module page is long lists of definitions; a listing on the web is
//! cards with images), and one linear model fitted to both loses on each what it gains on the
//! other (`docs/reports/classifier-web.md` measures it). The gate is itself a softmax model, so
//! the whole stays linear per expert, fast, and explainable by contributions.

use serde::{Deserialize, Serialize};

/// Version of a softmax model's format.
pub const FORMAT: u32 = 1;

/// Version of the mixture file format ([`Mixture`]).
pub const MIXTURE_FORMAT: u32 = 2;

/// The gate's classes, in order: the experts of a [`Mixture`] follow it.
pub const GATE_CLASSES: [&str; 2] = ["documentation", "web"];

/// Decimals kept for every float of the model file.
pub const DECIMALS: i32 = 6;

/// A trained model. `weights[c][j]` multiplies the standardised feature `j` in the score of class
/// `classes[c]`; the probabilities are the softmax of the scores.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Model {
    /// File format version ([`FORMAT`]).
    pub format: u32,
    /// What the model was trained on and how (free text, for people).
    pub trained_on: String,
    /// `exemplar_eval::classify_train::data_digest` of the pages it was trained on (empty when unknown).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub training_data: String,
    /// L2 regularisation strength used in training.
    pub l2: f64,
    /// Standardised feature values are clipped to `[-clip, clip]`.
    pub clip: f64,
    /// Class order of `weights` and `bias` (the kinds' names, or [`GATE_CLASSES`]).
    pub classes: Vec<String>,
    /// Feature names, in vector order (must equal [`super::features::NAMES`]).
    pub features: Vec<String>,
    /// Per-feature mean of the training set.
    pub mean: Vec<f64>,
    /// Per-feature standard deviation of the training set (1 for constant features).
    pub std: Vec<f64>,
    /// Weights, one row per class.
    pub weights: Vec<Vec<f64>>,
    /// Intercepts, one per class.
    pub bias: Vec<f64>,
}

/// Training settings.
#[derive(Clone, Debug, PartialEq)]
pub struct FitOptions {
    /// L2 regularisation strength (on the weights, not the intercepts), relative to the mean
    /// sample loss.
    pub l2: f64,
    /// Largest number of L-BFGS iterations.
    pub max_iter: usize,
    /// Stop when the gradient's infinity norm falls below this.
    pub tolerance: f64,
    /// Standardised values are clipped to `[-clip, clip]`: a page whose feature lies far outside
    /// the training range (another site's template) cannot push one feature's vote without bound.
    pub clip: f64,
    /// The features the model may use (`false`: its weights stay 0); empty for all.
    pub used: Vec<bool>,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            l2: 0.01,
            max_iter: 400,
            tolerance: 1e-7,
            clip: 3.0,
            used: Vec::new(),
        }
    }
}

/// Rounds to [`DECIMALS`] decimals (and turns `-0` into `0`).
pub fn round(x: f64) -> f64 {
    let s = 10f64.powi(DECIMALS);
    let r = (x * s).round() / s;
    if r == 0.0 { 0.0 } else { r }
}

fn softmax_in_place(z: &mut [f64]) {
    let max = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut sum = 0.0;
    for v in z.iter_mut() {
        *v = (*v - max).exp();
        sum += *v;
    }
    for v in z.iter_mut() {
        *v /= sum;
    }
}

impl Model {
    /// Number of features.
    pub fn dim(&self) -> usize {
        self.features.len()
    }

    /// Fits a model. `x`: raw feature rows; `y`: class index into `classes` per row; `weight`:
    /// per-row weight (class balancing). Deterministic: no randomness, fixed iteration order.
    /// The fitted numbers are rounded as the model file stores them.
    ///
    /// # Panics
    /// When the inputs are empty or of inconsistent lengths (a programming error of the caller).
    pub fn fit(
        names: &[&str],
        classes: &[&str],
        x: &[Vec<f64>],
        y: &[usize],
        weight: &[f64],
        opts: &FitOptions,
    ) -> Model {
        assert!(!x.is_empty() && x.len() == y.len() && x.len() == weight.len());
        let d = names.len();
        let k = classes.len();
        assert!(x.iter().all(|r| r.len() == d) && y.iter().all(|&c| c < k));
        let n = x.len() as f64;
        let mut mean = vec![0.0; d];
        for r in x {
            for j in 0..d {
                mean[j] += r[j] / n;
            }
        }
        let mut std = vec![0.0; d];
        for r in x {
            for j in 0..d {
                std[j] += (r[j] - mean[j]).powi(2) / n;
            }
        }
        let mean: Vec<f64> = mean.into_iter().map(round).collect();
        let std: Vec<f64> = std
            .into_iter()
            .map(|v| {
                let s = round(v.sqrt());
                if s > 1e-6 { s } else { 1.0 }
            })
            .collect();
        let used = |j: usize| opts.used.get(j).copied().unwrap_or(true);
        // An unused feature's column is zero, so its weights stay at their start, 0.
        let z: Vec<Vec<f64>> = x
            .iter()
            .map(|r| {
                (0..d)
                    .map(|j| {
                        if used(j) {
                            ((r[j] - mean[j]) / std[j]).clamp(-opts.clip, opts.clip)
                        } else {
                            0.0
                        }
                    })
                    .collect()
            })
            .collect();
        let total: f64 = weight.iter().sum();
        let sw: Vec<f64> = weight.iter().map(|w| w / total).collect();
        let objective = Objective {
            z: &z,
            y,
            w: &sw,
            k,
            d,
            l2: opts.l2,
        };
        let theta = lbfgs(&objective, vec![0.0; k * (d + 1)], opts);
        let weights = (0..k)
            .map(|c| {
                (0..d)
                    .map(|j| round(theta[c * (d + 1) + j]))
                    .collect::<Vec<_>>()
            })
            .collect();
        let bias = (0..k).map(|c| round(theta[c * (d + 1) + d])).collect();
        Model {
            format: FORMAT,
            trained_on: String::new(),
            training_data: String::new(),
            l2: opts.l2,
            clip: opts.clip,
            classes: classes.iter().map(|c| c.to_string()).collect(),
            features: names.iter().map(|s| s.to_string()).collect(),
            mean,
            std,
            weights,
            bias,
        }
    }

    /// Standardised features of a raw row.
    pub fn standardise(&self, raw: &[f64]) -> Vec<f64> {
        raw.iter()
            .zip(self.mean.iter().zip(&self.std))
            .map(|(v, (m, s))| ((v - m) / s).clamp(-self.clip, self.clip))
            .collect()
    }

    /// Class probabilities of a raw feature row, in [`Model::classes`] order.
    pub fn probabilities(&self, raw: &[f64]) -> Vec<f64> {
        let z = self.standardise(raw);
        let mut s: Vec<f64> = self
            .weights
            .iter()
            .zip(&self.bias)
            .map(|(w, b)| b + w.iter().zip(&z).map(|(a, b)| a * b).sum::<f64>())
            .collect();
        softmax_in_place(&mut s);
        s
    }

    /// The most probable class index and its probability.
    pub fn predict(&self, raw: &[f64]) -> (usize, f64) {
        let p = self.probabilities(raw);
        let mut best = 0;
        for (c, &v) in p.iter().enumerate() {
            if v > p[best] {
                best = c;
            }
        }
        (best, p[best])
    }

    /// Contribution of every feature to the score of class `c` (weight × standardised value).
    pub fn contributions(&self, raw: &[f64], c: usize) -> Vec<f64> {
        let z = self.standardise(raw);
        self.weights[c].iter().zip(&z).map(|(w, v)| w * v).collect()
    }

    /// The model file text: pretty JSON, floats as rounded, a final newline.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(&self.rounded()).unwrap_or_default();
        s.push('\n');
        s
    }

    /// The model with every float rounded as its file stores it.
    fn rounded(&self) -> Model {
        let mut rounded = self.clone();
        rounded.l2 = round(rounded.l2);
        rounded.clip = round(rounded.clip);
        for v in rounded
            .mean
            .iter_mut()
            .chain(rounded.std.iter_mut())
            .chain(rounded.bias.iter_mut())
            .chain(rounded.weights.iter_mut().flatten())
        {
            *v = round(*v);
        }
        rounded
    }

    /// Reads and checks a model file.
    ///
    /// # Errors
    /// On malformed JSON, a different format version, inconsistent dimensions or non-finite
    /// numbers.
    pub fn from_json(text: &str) -> Result<Model, String> {
        let m: Model = serde_json::from_str(text).map_err(|e| format!("model JSON: {e}"))?;
        Model::check(&m)?;
        Ok(m)
    }

    /// Checks a parsed model's format, dimensions and numbers.
    fn check(m: &Model) -> Result<(), String> {
        if m.format != FORMAT {
            return Err(format!(
                "model format {} (this build reads {FORMAT})",
                m.format
            ));
        }
        let d = m.features.len();
        let k = m.classes.len();
        if k < 2
            || m.bias.len() != k
            || m.weights.len() != k
            || m.weights.iter().any(|w| w.len() != d)
            || m.mean.len() != d
            || m.std.len() != d
        {
            return Err("model dimensions are inconsistent".into());
        }
        let finite = m
            .mean
            .iter()
            .chain(&m.std)
            .chain(&m.bias)
            .chain(m.weights.iter().flatten())
            .all(|v| v.is_finite());
        if !finite || m.std.iter().any(|&s| s <= 0.0) || m.clip.is_nan() || m.clip <= 0.0 {
            return Err("model has non-finite numbers or a non-positive std".into());
        }
        Ok(())
    }
}

/// The shipped classifier: a gate ([`GATE_CLASSES`]) and one page-kind expert per gate class;
/// a page's kind probabilities are the experts' weighed by the gate's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Mixture {
    /// File format version ([`MIXTURE_FORMAT`]).
    pub format: u32,
    /// What it was trained on and how (free text, for people).
    pub trained_on: String,
    /// `exemplar_eval::classify_train::data_digest` of the pages it was trained on.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub training_data: String,
    /// Which expert speaks for a page.
    pub gate: Model,
    /// One expert per gate class, in [`GATE_CLASSES`] order.
    pub experts: Vec<Model>,
}

impl Mixture {
    /// Class probabilities of a raw row (in the experts' class order) and the gate's.
    pub fn probabilities(&self, raw: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let g = self.gate.probabilities(raw);
        let mut p = vec![0.0; self.experts.first().map_or(0, |e| e.classes.len())];
        for (e, &w) in self.experts.iter().zip(&g) {
            for (a, b) in p.iter_mut().zip(e.probabilities(raw)) {
                *a += w * b;
            }
        }
        (p, g)
    }

    /// The most probable class index, its probability, and the index of the expert the gate
    /// trusts most.
    pub fn predict(&self, raw: &[f64]) -> (usize, f64, usize) {
        let (p, g) = self.probabilities(raw);
        let best = argmax(&p);
        (best, p.get(best).copied().unwrap_or(0.0), argmax(&g))
    }

    /// The file text: pretty JSON, floats as rounded, a final newline.
    pub fn to_json(&self) -> String {
        let rounded = Mixture {
            gate: self.gate.rounded(),
            experts: self.experts.iter().map(Model::rounded).collect(),
            ..self.clone()
        };
        let mut s = serde_json::to_string_pretty(&rounded).unwrap_or_default();
        s.push('\n');
        s
    }

    /// Reads and checks a mixture file: its format, the gate's classes, one expert per gate
    /// class, every part valid ([`Model::from_json`]) and reading the same features, the experts
    /// the same classes.
    ///
    /// # Errors
    /// When any of that fails.
    pub fn from_json(text: &str) -> Result<Mixture, String> {
        let m: Mixture = serde_json::from_str(text).map_err(|e| format!("model JSON: {e}"))?;
        if m.format != MIXTURE_FORMAT {
            return Err(format!(
                "model format {} (this build reads {MIXTURE_FORMAT})",
                m.format
            ));
        }
        for part in std::iter::once(&m.gate).chain(&m.experts) {
            Model::check(part)?;
        }
        if m.gate.classes != GATE_CLASSES {
            return Err("the gate's classes are not documentation, web".into());
        }
        if m.experts.len() != GATE_CLASSES.len()
            || m.experts.iter().any(|e| e.classes != m.experts[0].classes)
            || m.experts.iter().any(|e| e.features != m.gate.features)
        {
            return Err("the experts do not match the gate".into());
        }
        Ok(m)
    }
}

fn argmax(p: &[f64]) -> usize {
    let mut best = 0;
    for (c, &v) in p.iter().enumerate() {
        if v > p[best] {
            best = c;
        }
    }
    best
}

/// Weighted softmax cross-entropy plus L2, over parameters laid out class by class as
/// `[w_c0 .. w_cd-1, b_c]`.
struct Objective<'a> {
    z: &'a [Vec<f64>],
    y: &'a [usize],
    w: &'a [f64],
    k: usize,
    d: usize,
    l2: f64,
}

impl Objective<'_> {
    /// Value and gradient.
    fn eval(&self, theta: &[f64], grad: &mut [f64]) -> f64 {
        let (k, d) = (self.k, self.d);
        grad.iter_mut().for_each(|g| *g = 0.0);
        let mut loss = 0.0;
        let mut s = vec![0.0; k];
        for ((row, &yi), &wi) in self.z.iter().zip(self.y).zip(self.w) {
            for (c, sc) in s.iter_mut().enumerate() {
                let p = &theta[c * (d + 1)..(c + 1) * (d + 1)];
                *sc = p[d] + p[..d].iter().zip(row).map(|(a, b)| a * b).sum::<f64>();
            }
            softmax_in_place(&mut s);
            loss -= wi * s[yi].max(1e-300).ln();
            for (c, &pc) in s.iter().enumerate() {
                let r = wi * (pc - if c == yi { 1.0 } else { 0.0 });
                let g = &mut grad[c * (d + 1)..(c + 1) * (d + 1)];
                for (gj, xj) in g[..d].iter_mut().zip(row) {
                    *gj += r * xj;
                }
                g[d] += r;
            }
        }
        for c in 0..k {
            for j in 0..d {
                let t = theta[c * (d + 1) + j];
                loss += 0.5 * self.l2 * t * t;
                grad[c * (d + 1) + j] += self.l2 * t;
            }
        }
        loss
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Limited-memory BFGS (memory 10) with a backtracking Armijo line search.
fn lbfgs(f: &Objective<'_>, mut x: Vec<f64>, opts: &FitOptions) -> Vec<f64> {
    const MEMORY: usize = 10;
    let n = x.len();
    let mut g = vec![0.0; n];
    let mut fx = f.eval(&x, &mut g);
    let mut hist: Vec<(Vec<f64>, Vec<f64>, f64)> = Vec::new();
    let mut xn = vec![0.0; n];
    let mut gn = vec![0.0; n];
    for _ in 0..opts.max_iter {
        if g.iter().fold(0.0f64, |m, v| m.max(v.abs())) < opts.tolerance {
            break;
        }
        // Two-loop recursion: direction = -H g.
        let mut q = g.clone();
        let mut alphas = Vec::with_capacity(hist.len());
        for (s, yv, rho) in hist.iter().rev() {
            let a = rho * dot(s, &q);
            for (qi, yi) in q.iter_mut().zip(yv) {
                *qi -= a * yi;
            }
            alphas.push(a);
        }
        if let Some((s, yv, _)) = hist.last() {
            let gamma = dot(s, yv) / dot(yv, yv);
            q.iter_mut().for_each(|v| *v *= gamma);
        }
        for ((s, yv, rho), a) in hist.iter().zip(alphas.iter().rev()) {
            let b = rho * dot(yv, &q);
            for (qi, si) in q.iter_mut().zip(s) {
                *qi += (a - b) * si;
            }
        }
        let mut dir: Vec<f64> = q.iter().map(|v| -v).collect();
        let mut slope = dot(&g, &dir);
        if slope >= 0.0 {
            // Not a descent direction: restart from steepest descent.
            hist.clear();
            dir = g.iter().map(|v| -v).collect();
            slope = dot(&g, &dir);
        }
        let mut step = if hist.is_empty() {
            1.0 / g.iter().map(|v| v * v).sum::<f64>().sqrt().max(1.0)
        } else {
            1.0
        };
        let mut accepted = false;
        for _ in 0..40 {
            for i in 0..n {
                xn[i] = x[i] + step * dir[i];
            }
            let fxn = f.eval(&xn, &mut gn);
            if fxn <= fx + 1e-4 * step * slope {
                let s: Vec<f64> = (0..n).map(|i| xn[i] - x[i]).collect();
                let yv: Vec<f64> = (0..n).map(|i| gn[i] - g[i]).collect();
                let sy = dot(&s, &yv);
                if sy > 1e-12 {
                    if hist.len() == MEMORY {
                        hist.remove(0);
                    }
                    hist.push((s, yv, 1.0 / sy));
                }
                std::mem::swap(&mut x, &mut xn);
                std::mem::swap(&mut g, &mut gn);
                let done = (fx - fxn).abs() < 1e-12 * fx.abs().max(1.0);
                fx = fxn;
                accepted = true;
                if done {
                    return x;
                }
                break;
            }
            step *= 0.5;
        }
        if !accepted {
            break;
        }
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toy() -> Model {
        // Class 0 when x0 is large, class 1 when x1 is large, class 2 otherwise.
        let mut x = Vec::new();
        let mut y = Vec::new();
        for i in 0..30 {
            let t = f64::from(i) / 10.0;
            x.push(vec![3.0 + t, 0.0]);
            y.push(0);
            x.push(vec![0.0, 3.0 + t]);
            y.push(1);
            x.push(vec![t / 3.0, t / 3.0]);
            y.push(2);
        }
        let w = vec![1.0; x.len()];
        Model::fit(
            &["a", "b"],
            &["index", "entity", "other"],
            &x,
            &y,
            &w,
            &FitOptions::default(),
        )
    }

    #[test]
    fn fits_a_separable_toy_problem() {
        let m = toy();
        assert_eq!(m.predict(&[5.0, 0.0]).0, 0);
        assert_eq!(m.predict(&[0.0, 5.0]).0, 1);
        assert_eq!(m.predict(&[0.3, 0.3]).0, 2);
        let p = m.probabilities(&[5.0, 0.0]);
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        assert!(p[0] > 0.9, "{p:?}");
        let c = m.contributions(&[5.0, 0.0], 0);
        assert!(c[0] > 0.0 && c[0].abs() > c[1].abs(), "{c:?}");
    }

    #[test]
    fn training_is_deterministic_and_json_round_trips() {
        let a = toy();
        let b = toy();
        assert_eq!(a.to_json(), b.to_json());
        let back = Model::from_json(&a.to_json()).unwrap();
        assert_eq!(back, a);
        assert_eq!(back.to_json(), a.to_json());
    }

    #[test]
    fn rejects_garbled_models() {
        assert!(Model::from_json("").is_err());
        assert!(Model::from_json("{\"format\": 1}").is_err());
        let mut m = toy();
        m.weights[1].pop();
        assert!(Model::from_json(&m.to_json()).is_err());
        let mut m = toy();
        m.format = 99;
        assert!(Model::from_json(&m.to_json()).is_err());
        let mut m = toy();
        m.std[0] = 0.0;
        assert!(Model::from_json(&m.to_json()).is_err());
    }
}
