"""Whole layers: post-norm encoder and decoder layers, and stacks of them."""

from __future__ import annotations

from typing import NamedTuple, Sequence

from . import primitives as P
from .attention import causal_mask
from .multi_head import multi_head, Head
from .ffn import ffn_steps, residual
from .norm import layer_norm_steps, EPS
from .steps import Steps


class FFNParams(NamedTuple):
    W1: object
    b1: object
    W2: object
    b2: object


class EncoderLayerParams(NamedTuple):
    """Weights of one post-norm encoder layer (each layer of a stack has its own)."""
    heads: Sequence[Head]
    W_O: object
    ffn: FFNParams
    eps: object = EPS
    norm1: tuple = (None, None)          # (gamma, beta) of the first LayerNorm
    norm2: tuple = (None, None)


class DecoderLayerParams(NamedTuple):
    self_heads: Sequence[Head]
    self_W_O: object
    cross_heads: Sequence[Head]
    cross_W_O: object
    ffn: FFNParams
    eps: object = EPS
    norm1: tuple = (None, None)
    norm2: tuple = (None, None)
    norm3: tuple = (None, None)


def encoder_layer(X, p: EncoderLayerParams, mask=None, scale=None) -> Steps:
    """Post-norm encoder layer (norm_first=False, no dropout):
    O = MultiHead(X); H = LayerNorm(X + O); output = LayerNorm(H + FFN(H))."""
    st = Steps()
    st["attention"] = multi_head(X, X, p.heads, p.W_O, mask=mask, scale=scale)
    st["residual1"] = residual(X, st["attention"]["output"])
    st["norm1"] = layer_norm_steps(st["residual1"], p.eps, *p.norm1)
    H = st["norm1"]["output"]
    st["ffn"] = ffn_steps(H, p.ffn.W1, p.ffn.b1, p.ffn.W2, p.ffn.b2)
    st["residual2"] = residual(H, st["ffn"]["output"])
    st["norm2"] = layer_norm_steps(st["residual2"], p.eps, *p.norm2)
    st["output"] = st["norm2"]["output"]
    return st


def decoder_layer(Y, H_enc, p: DecoderLayerParams, enc_mask=None, scale=None) -> Steps:
    """Post-norm decoder layer: masked self-attention → Add&Norm → cross-attention over the
    encoder's final output → Add&Norm → FFN → Add&Norm."""
    Y = P.as_tensor(Y)
    st = Steps()
    st["self_attention"] = multi_head(Y, Y, p.self_heads, p.self_W_O,
                                      mask=causal_mask(Y.shape[0]), scale=scale)
    st["residual1"] = residual(Y, st["self_attention"]["output"])
    st["norm1"] = layer_norm_steps(st["residual1"], p.eps, *p.norm1)
    S = st["norm1"]["output"]
    st["cross_attention"] = multi_head(S, H_enc, p.cross_heads, p.cross_W_O, mask=enc_mask,
                                       scale=scale)
    st["residual2"] = residual(S, st["cross_attention"]["output"])
    st["norm2"] = layer_norm_steps(st["residual2"], p.eps, *p.norm2)
    S2 = st["norm2"]["output"]
    st["ffn"] = ffn_steps(S2, p.ffn.W1, p.ffn.b1, p.ffn.W2, p.ffn.b2)
    st["residual3"] = residual(S2, st["ffn"]["output"])
    st["norm3"] = layer_norm_steps(st["residual3"], p.eps, *p.norm3)
    st["output"] = st["norm3"]["output"]
    return st


def _stack(x, layers, layer) -> Steps:
    st = Steps()
    out = []
    for p in layers:
        s = layer(x, p)
        out.append(s)
        x = s["output"]
    st["layers"] = out
    st["output"] = x
    return st


def encoder(X, layers: Sequence[EncoderLayerParams], mask=None, scale=None) -> Steps:
    """A stack of N encoder layers, each with its own weights."""
    return _stack(X, layers, lambda x, p: encoder_layer(x, p, mask, scale))


def decoder(Y, H_enc, layers: Sequence[DecoderLayerParams], enc_mask=None, scale=None) -> Steps:
    """A stack of N decoder layers; every layer attends to the same encoder output."""
    return _stack(Y, layers, lambda y, p: decoder_layer(y, H_enc, p, enc_mask, scale))
