"""The operations of the articles, each written once over the primitives.

Row-vector convention throughout: tokens are rows, ``y = x·W + b``, weights stored
input-rows × output-columns exactly as the articles print them.
"""

from .primitives import const, matmul, transpose, hcat as concat, vcat as stack, take
from .elementwise import exp, log, sqrt, sin, cos, relu, row_sum, mean, var, row_max, abs_
from .softmax import softmax
from .attention import (causal_mask, padding_mask, scores, weights, attention, attention_steps,
                        multi_head, self_attention, cross_attention, Head, default_scale)
from .norm import layer_norm, layer_norm_steps, EPS
from .ffn import linear, ffn, ffn_steps, residual
from .layers import (encoder_layer, decoder_layer, encoder, decoder, EncoderLayerParams,
                     DecoderLayerParams, FFNParams)
from .embedding import embed, positional_encoding, learned_positional_encoding
from .output import logits, probabilities, cross_entropy, label_smoothing_loss, greedy
from .steps import Steps

__all__ = [
    "const", "matmul", "transpose", "concat", "stack", "take",
    "exp", "log", "sqrt", "sin", "cos", "relu", "row_sum", "mean", "var", "row_max",
    "softmax", "causal_mask", "padding_mask", "scores", "weights", "attention",
    "attention_steps", "multi_head", "self_attention", "cross_attention", "Head",
    "default_scale", "layer_norm", "layer_norm_steps", "EPS", "linear", "ffn", "ffn_steps",
    "residual", "encoder_layer", "decoder_layer", "encoder", "decoder", "EncoderLayerParams",
    "DecoderLayerParams", "FFNParams", "embed", "positional_encoding",
    "learned_positional_encoding", "logits", "probabilities", "cross_entropy",
    "label_smoothing_loss", "greedy", "Steps",
]
