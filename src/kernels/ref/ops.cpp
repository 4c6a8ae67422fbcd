#include "kernels/ref/ops.h"

#include <cmath>
#include <vector>

#include "kernels/ref/vec_dot.h"
#include "quant/quant.h"

namespace kz::ref {

void matmul_f32act(const Matrix& w, const float* x, int64_t n_tok, float* y) {
  std::vector<float> row(w.cols);
  for (int64_t o = 0; o < w.rows; ++o) {
    dequantize_row(w.type, w.data + o * w.row_bytes, row.data(), w.cols);
    for (int64_t t = 0; t < n_tok; ++t) {
      const float* xt = x + t * w.cols;
      float sum = 0.0f;
      for (int64_t i = 0; i < w.cols; ++i) sum += row[i] * xt[i];
      y[t * w.rows + o] = sum;
    }
  }
}

void matmul_rounded_act(const Matrix& w, const float* x, int64_t n_tok, float* y) {
  if (!has_vec_dot(w.type)) return matmul_f32act(w, x, n_tok, y);
  const DType act_type = vec_dot_type(w.type);
  std::vector<uint8_t> act(row_bytes(act_type, w.cols));
  const GemvFn gemv = gemv_function(w.type);
  for (int64_t t = 0; t < n_tok; ++t) {
    quantize_activation(act_type, x + t * w.cols, act.data(), w.cols);
    gemv(w.data, w.row_bytes, w.rows, act.data(), w.cols, y + t * w.rows);
  }
}

void get_rows(const Matrix& w, std::span<const int32_t> ids, float* y) {
  for (size_t i = 0; i < ids.size(); ++i)
    dequantize_row(w.type, w.data + ids[i] * w.row_bytes, y + i * w.cols, w.cols);
}

// As ggml_compute_forward_rms_norm_f32: squares summed in double, mean rounded to f32.
void rms_norm(const float* x, const float* w, int64_t n, int64_t rows, float eps, float* y) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * n;
    float* yr = y + r * n;
    double sum = 0.0;
    for (int64_t i = 0; i < n; ++i) sum += double(xr[i]) * double(xr[i]);
    const float mean = float(sum / double(n));
    const float scale = 1.0f / std::sqrt(mean + eps);
    for (int64_t i = 0; i < n; ++i) yr[i] = w ? (xr[i] * scale) * w[i] : xr[i] * scale;
  }
}

// θ is iterated as a product with theta_scale, like ggml_rope_cache_init, not a fresh pow per pair.
void rope_neox(float* x, int64_t n_tok, int n_head, int head_dim, int n_rot, const int32_t* pos,
               float freq_base) {
  const float theta_scale = std::pow(freq_base, -2.0f / float(n_rot));
  const int half = n_rot / 2;
  std::vector<float> cos_t(half), sin_t(half);
  for (int64_t t = 0; t < n_tok; ++t) {
    float theta = float(pos[t]);
    for (int k = 0; k < half; ++k) {
      cos_t[k] = std::cos(theta);
      sin_t[k] = std::sin(theta);
      theta *= theta_scale;
    }
    for (int h = 0; h < n_head; ++h) {
      float* v = x + (t * n_head + h) * head_dim;
      for (int k = 0; k < half; ++k) {
        const float a = v[k], b = v[k + half];
        v[k] = a * cos_t[k] - b * sin_t[k];
        v[k + half] = a * sin_t[k] + b * cos_t[k];
      }
    }
  }
}

void swiglu(const float* gate, const float* up, int64_t n, float* y) {
  for (int64_t i = 0; i < n; ++i) y[i] = silu(gate[i]) * up[i];
}

void silu(float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] = silu(x[i]);
}

void add(float* x, const float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] += y[i];
}

void mul_sigmoid(float* x, const float* gate, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] *= sigmoid(gate[i]);
}

void split_halves(const float* x, int64_t rows, int64_t n, float* a, float* b) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t i = 0; i < n; ++i) {
      a[r * n + i] = x[r * 2 * n + i];
      b[r * n + i] = x[r * 2 * n + n + i];
    }
}

void join_halves(const float* a, const float* b, int64_t rows, int64_t n, float* out) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t i = 0; i < n; ++i) {
      out[r * 2 * n + i] = a[r * n + i];
      out[r * 2 * n + n + i] = b[r * n + i];
    }
}

// Each head's row is converted by the reference converters (quant/quant.h); a Q8_0 row is
// whole blocks (head_dim % 32 == 0).
void kv_store(const KvCacheView& kv, int64_t pos0, int64_t n_tok, const float* k, const float* v) {
  const int d = kv.head_dim;
  for (int64_t t = 0; t < n_tok; ++t)
    for (int h = 0; h < kv.n_kv_head; ++h) {
      const int64_t in = (t * kv.n_kv_head + h) * d;
      quantize_row(kv.k_type, k + in, kv.k_row(h, pos0 + t), d);
      quantize_row(kv.v_type, v + in, kv.v_row(h, pos0 + t), d);
    }
}

// Plain softmax attention in f32 over the dequantized cache: scores, max-subtracted
// exponentials, weighted sum of values.
void attention(const float* q, const KvCacheView& kv, int64_t pos0, int64_t n_tok, int n_head,
               float scale, float* out) {
  const int d = kv.head_dim;
  const int group = n_head / kv.n_kv_head;
  const int64_t n_ctx = pos0 + n_tok;
  // keys[h][j][i], values likewise: the used positions of each head, dequantized.
  std::vector<float> keys(kv.n_kv_head * n_ctx * d), values(keys.size()), scores(n_ctx);
  for (int h = 0; h < kv.n_kv_head; ++h) {
    dequantize_row(kv.k_type, kv.k_row(h, 0), keys.data() + h * n_ctx * d, n_ctx * d);
    dequantize_row(kv.v_type, kv.v_row(h, 0), values.data() + h * n_ctx * d, n_ctx * d);
  }
  for (int64_t t = 0; t < n_tok; ++t) {
    const int64_t n_keys = pos0 + t + 1;  // causal: keys at positions <= the query's
    for (int h = 0; h < n_head; ++h) {
      const float* qh = q + (t * n_head + h) * d;
      const int64_t kv_off = int64_t(h / group) * n_ctx * d;
      float max_s = -INFINITY;
      for (int64_t j = 0; j < n_keys; ++j) {
        float s = 0.0f;
        for (int i = 0; i < d; ++i) s += qh[i] * keys[kv_off + j * d + i];
        scores[j] = s * scale;
        max_s = std::max(max_s, scores[j]);
      }
      float sum = 0.0f;
      for (int64_t j = 0; j < n_keys; ++j) sum += (scores[j] = std::exp(scores[j] - max_s));
      float* o = out + (t * n_head + h) * d;
      for (int i = 0; i < d; ++i) o[i] = 0.0f;
      for (int64_t j = 0; j < n_keys; ++j) {
        const float p = scores[j] / sum;
        for (int i = 0; i < d; ++i) o[i] += p * values[kv_off + j * d + i];
      }
    }
  }
}

}  // namespace kz::ref
