"""The com.microsoft attention family's cases for generate.py: GroupQueryAttention,
MultiHeadAttention, Attention and EmbedLayerNormalization, one small node each, with ONNX
Runtime's outputs as the references.

define_cases(case, rng_for, f32) adds them through generate.py's own helpers."""
import numpy as np


def i32(*values):
    return np.array(values, np.int32)


def define_cases(case, rng_for, f32):
    define_group_query_attention_cases(case, rng_for, f32)
    define_multihead_attention_cases(case, rng_for, f32)
    define_attention_cases(case, rng_for, f32)
    define_embed_layer_norm_cases(case, rng_for, f32)


def define_group_query_attention_cases(case, rng_for, f32):
    # GroupQueryAttention: 4 query heads over 2 key/value heads of 16 features (ONNX Runtime's
    # rotary path wants head sizes that are multiples of 16). seqlens_k[b] is sequence b's valid
    # key count (past and new) minus one; the present caches are BNSH.
    heads, kv_heads = 4, 2

    def gqa(name, batch, seq, seqlens, total, past=0, packed=False, rotary=None,
            position_ids=None, bias=False, outputs=("output", "present_key", "present_value"),
            head=16, dtype=np.float32, **attrs):
        r = rng_for(name)
        inputs = []
        if packed:
            inputs += [("query", f32(r, batch, seq, (heads + 2 * kv_heads) * head)), ("", None),
                       ("", None)]
        else:
            inputs += [("query", f32(r, batch, seq, heads * head)),
                       ("key", f32(r, batch, seq, kv_heads * head)),
                       ("value", f32(r, batch, seq, kv_heads * head))]
        if past:
            inputs += [("past_key", f32(r, batch, kv_heads, past, head)),
                       ("past_value", f32(r, batch, kv_heads, past, head))]
        else:
            inputs += [("", None), ("", None)]
        inputs += [("seqlens_k", i32(*seqlens)), ("total_sequence_length", i32(total))]
        if rotary:
            rows, half = rotary
            angles = r.uniform(-3, 3, (rows, half))
            inputs += [("cos_cache", np.cos(angles).astype(np.float32)),
                       ("sin_cache", np.sin(angles).astype(np.float32))]
            attrs["do_rotary"] = 1
        else:
            inputs += [("", None), ("", None)]
        inputs.append(("position_ids", position_ids) if position_ids is not None else ("", None))
        inputs.append(("attention_bias", f32(r, batch, 1, seq, total)) if bias else ("", None))
        while inputs[-1][0] == "":
            inputs.pop()
        inputs = [(n, v.astype(dtype) if v is not None and v.dtype == np.float32 else v)
                  for n, v in inputs]
        case(name, "GroupQueryAttention", inputs, list(outputs), num_heads=heads,
             kv_num_heads=kv_heads, **attrs)

    # The first prompt: every token of both sequences, then one with right padding.
    gqa("ms_gqa_prompt", 2, 4, [3, 3], 4)
    gqa("ms_gqa_prompt_padded", 2, 4, [3, 1], 4)
    # Token generation: one new token after a past of 5 (sequence 1 has only 3 valid past keys).
    gqa("ms_gqa_decode", 2, 1, [5, 3], 6, past=5)
    # The shared-buffer form: past and present as long as the longest sequence will be.
    gqa("ms_gqa_decode_shared_buffer", 2, 1, [4, 2], 5, past=8)
    # A later prompt chunk of 3 tokens after 4 past keys (batch 1 only).
    gqa("ms_gqa_later_prompt", 1, 3, [6], 7, past=4)
    gqa("ms_gqa_packed_qkv", 2, 3, [2, 2], 3)
    gqa("ms_gqa_packed_qkv_decode", 1, 1, [3], 4, past=3, packed=True)
    gqa("ms_gqa_rotary_prompt", 2, 3, [2, 2], 3, rotary=(8, 8))
    gqa("ms_gqa_rotary_interleaved_decode", 2, 1, [4, 2], 5, past=4, rotary=(8, 8),
        rotary_interleaved=1)
    gqa("ms_gqa_rotary_partial_packed", 1, 3, [2], 3, packed=True, rotary=(8, 8), head=32)
    gqa("ms_gqa_local_window", 1, 6, [5], 6, local_window_size=2)
    gqa("ms_gqa_local_window_decode", 2, 1, [6, 3], 7, past=6, local_window_size=3)
    gqa("ms_gqa_softcap_scale", 2, 3, [2, 2], 3, softcap=2.0, scale=0.3)
    gqa("ms_gqa_attention_bias", 2, 3, [2, 2], 3, bias=True)
    gqa("ms_gqa_position_ids", 1, 3, [5], 6, past=3, rotary=(10, 8),
        position_ids=np.array([[6, 7, 9]], np.int64))
    gqa("ms_gqa_non_causal", 2, 3, [2, 2], 3, causal=0)
    gqa("ms_gqa_float16_rotary_decode", 2, 1, [3, 2], 4, past=3, rotary=(8, 8), dtype=np.float16)


def define_multihead_attention_cases(case, rng_for, f32):
    # MultiHeadAttention: 2 heads of 8 features, 3 queries over 4 keys unless said otherwise.
    heads, head = 2, 8
    hidden = heads * head

    def mha(name, batch=2, seq=3, kv=4, v_hidden=hidden, bias=False, mask=None, attn_bias=None,
            past=0, outputs=("output",), **attrs):
        r = rng_for(name)
        inputs = [("query", f32(r, batch, seq, hidden)), ("key", f32(r, batch, kv, hidden)),
                  ("value", f32(r, batch, kv, v_hidden)),
                  ("bias", f32(r, 2 * hidden + v_hidden)) if bias else ("", None),
                  ("key_padding_mask", mask) if mask is not None else ("", None),
                  ("attention_bias", f32(r, *attn_bias)) if attn_bias else ("", None)]
        if past:
            inputs += [("past_key", f32(r, batch, heads, past, head)),
                       ("past_value", f32(r, batch, heads, past, v_hidden // heads))]
        while inputs[-1][0] == "":
            inputs.pop()
        case(name, "MultiHeadAttention", inputs, list(outputs), num_heads=heads, **attrs)

    mha("ms_mha")
    mha("ms_mha_bias_v_hidden", v_hidden=24, bias=True)
    mha("ms_mha_key_lengths", mask=i32(4, 2))
    mha("ms_mha_mask_2d", mask=np.array([[1, 1, 0, 1], [1, 0, 0, 0]], np.int32))
    mha("ms_mha_mask_3d", mask=(rng_for("mask3")).integers(0, 2, (2, 3, 4)).astype(np.int32))
    mha("ms_mha_attention_bias", attn_bias=(1, heads, 3, 4))
    mha("ms_mha_attention_bias_batch", attn_bias=(2, 1, 3, 4), mask=i32(3, 4))
    mha("ms_mha_unidirectional", seq=4, unidirectional=1)
    mha("ms_mha_past_present", seq=2, kv=2, past=3, unidirectional=1,
        outputs=("output", "present_key", "present_value"))
    mha("ms_mha_present_no_past", bias=True, outputs=("output", "present_key", "present_value"))
    # A sequence whose keys are all hidden: ONNX Runtime adds mask_filter_value, not -inf, so
    # its queries average the values.
    mha("ms_mha_scale_filter_all_hidden", mask=i32(0, 3), scale=0.2, mask_filter_value=-100.0)

    # Keys and values already in heads [batch, heads, kv, head] (cross attention's cache).
    r = rng_for("ms_mha_cross_in_heads")
    case("ms_mha_cross_in_heads", "MultiHeadAttention",
         [("query", f32(r, 2, 3, hidden)), ("key", f32(r, 2, heads, 5, head)),
          ("value", f32(r, 2, heads, 5, head)), ("", None), ("key_padding_mask", i32(5, 3))],
         ["output"], num_heads=heads)

    # The packed forms, which ONNX Runtime's CPU kernel refuses: the reference is the unpacked
    # MultiHeadAttention (Split and Reshape first) run by ONNX Runtime.
    from onnx import helper

    def unpack(packed, parts, names, shape):
        nodes = [helper.make_node("Split", [packed], [n + "_5d" for n in names], axis=3)]
        nodes.append(helper.make_node("Constant", [], ["unpacked_shape"],
                                      value=helper.make_tensor("s", 7, [3], shape)))
        for n in names:
            nodes.append(helper.make_node("Reshape", [n + "_5d", "unpacked_shape"], [n]))
        return nodes

    r = rng_for("ms_mha_packed_kv")
    case("ms_mha_packed_kv", "MultiHeadAttention",
         [("query", f32(r, 2, 3, hidden)), ("key", f32(r, 2, 4, heads, 2, head)),
          ("", None), ("bias", f32(r, 3 * hidden))], ["output"], num_heads=heads,
         reference=lambda: unpack("key", 2, ["k", "v"], [2, 4, hidden]) + [
             helper.make_node("MultiHeadAttention", ["query", "k", "v", "bias"], ["output"],
                              domain="com.microsoft", num_heads=heads)])
    r = rng_for("ms_mha_packed_qkv")
    case("ms_mha_packed_qkv", "MultiHeadAttention",
         [("query", f32(r, 2, 3, heads, 3, head))], ["output"], num_heads=heads,
         reference=lambda: unpack("query", 3, ["q", "k", "v"], [2, 3, hidden]) + [
             helper.make_node("MultiHeadAttention", ["q", "k", "v"], ["output"],
                              domain="com.microsoft", num_heads=heads)])


def define_attention_cases(case, rng_for, f32):
    # Attention (com.microsoft): 2 heads of 8 features from an input of width 12, 3 tokens.
    heads, head, width = 2, 8, 12
    hidden = heads * head

    def attention(name, batch=2, seq=3, v_hidden=hidden, bias=True, mask=None, past=0,
                  attn_bias=False, outputs=("output",), **attrs):
        r = rng_for(name)
        total = past + seq
        inputs = [("input", f32(r, batch, seq, width)),
                  ("weights", f32(r, width, 2 * hidden + v_hidden, scale=0.5)),
                  ("bias", f32(r, 2 * hidden + v_hidden)) if bias else ("", None),
                  ("mask_index", mask) if mask is not None else ("", None),
                  ("past", f32(r, 2, batch, heads, past, head)) if past else ("", None),
                  ("attention_bias", f32(r, batch, heads, seq, total)) if attn_bias else ("", None)]
        while inputs[-1][0] == "":
            inputs.pop()
        if v_hidden != hidden:
            attrs["qkv_hidden_sizes"] = [hidden, hidden, v_hidden]
        case(name, "Attention", inputs, list(outputs), constants=("weights", "bias"),
             num_heads=heads, **attrs)

    attention("ms_attention")
    # Without bias ONNX Runtime 1.30's CPU kernel crashes (the docs call bias optional): the
    # reference is the same node with a zero bias.
    from onnx import helper
    attention("ms_attention_no_bias", bias=False, reference=lambda: [
        helper.make_node("Constant", [], ["zero_bias"],
                         value=helper.make_tensor("zero_bias", 1, [3 * hidden],
                                                  [0.0] * (3 * hidden))),
        helper.make_node("Attention", ["input", "weights", "zero_bias"], ["output"],
                         domain="com.microsoft", num_heads=heads)])
    attention("ms_attention_qkv_hidden_sizes", v_hidden=24)
    attention("ms_attention_mask_lengths", mask=i32(3, 1))
    attention("ms_attention_mask_left_padding", mask=i32(3, 3, 1, 0))
    attention("ms_attention_mask_2d", mask=np.array([[1, 0, 1], [1, 1, 0]], np.int32))
    attention("ms_attention_mask_3d",
              mask=rng_for("amask3").integers(0, 2, (2, 3, 3)).astype(np.int32))
    attention("ms_attention_unidirectional", seq=4, unidirectional=1)
    attention("ms_attention_past_present", seq=2, past=3, unidirectional=1,
              mask=np.ones((2, 5), np.int32), outputs=("output", "present"))
    attention("ms_attention_present", outputs=("output", "present"))
    attention("ms_attention_attention_bias_scale", attn_bias=True, scale=0.25)
    attention("ms_attention_all_hidden_filter", mask=i32(0, 2), mask_filter_value=-50.0)

    # The 4-D mask [batch, 1, max, max], which ONNX Runtime's CPU kernel refuses: the reference
    # is the 3-D mask it holds at rows past..past + seq (Slice, Squeeze) run by ONNX Runtime.
    r = rng_for("ms_attention_mask_4d")
    past, seq, max_len = 2, 3, 6
    mask4 = np.tril(np.ones((max_len, max_len), np.int32))[None, None].repeat(2, 0)
    mask4[1, 0, :, 0] = 0
    ins = [("input", f32(r, 2, seq, width)), ("weights", f32(r, width, 3 * hidden, scale=0.5)),
           ("bias", f32(r, 3 * hidden)), ("mask_index", mask4),
           ("past", f32(r, 2, 2, heads, past, head))]

    def sliced():
        def const(name, values):
            return helper.make_node("Constant", [], [name],
                                    value=helper.make_tensor(name, 7, [len(values)], values))
        return [const("starts", [past, 0]), const("ends", [past + seq, past + seq]),
                const("axes", [2, 3]), const("squeeze_axes", [1]),
                helper.make_node("Slice", ["mask_index", "starts", "ends", "axes"], ["m4"]),
                helper.make_node("Squeeze", ["m4", "squeeze_axes"], ["m3"]),
                helper.make_node("Attention", ["input", "weights", "bias", "m3", "past"],
                                 ["output", "present"], domain="com.microsoft", num_heads=heads)]
    case("ms_attention_mask_4d", "Attention", ins, ["output", "present"],
         constants=("weights", "bias"), num_heads=heads, reference=sliced)


def define_embed_layer_norm_cases(case, rng_for, f32):
    # EmbedLayerNormalization: a vocabulary of 10, 8 positions, 2 segments, 16 features.
    hidden = 16

    def embed(name, segments=True, mask=True, positions=None, outputs=("output", "mask_index"),
              batch=2, seq=4, **attrs):
        r = rng_for(name)
        ids = r.integers(0, 10, (batch, seq)).astype(np.int32)
        inputs = [("input_ids", ids),
                  ("segment_ids", r.integers(0, 2, (batch, seq)).astype(np.int32))
                  if segments else ("", None),
                  ("word_embedding", f32(r, 10, hidden)), ("position_embedding", f32(r, 8, hidden)),
                  ("segment_embedding", f32(r, 2, hidden)) if segments else ("", None),
                  ("gamma", f32(r, hidden)), ("beta", f32(r, hidden))]
        if mask:
            m = np.ones((batch, seq), np.int32)
            m[-1, seq // 2:] = 0
            inputs.append(("mask", m))
        else:
            inputs.append(("", None))
        inputs.append(("position_ids", positions) if positions is not None else ("", None))
        while inputs[-1][0] == "":
            inputs.pop()
        case(name, "EmbedLayerNormalization", inputs, list(outputs),
             output_dtypes={0: np.float32, 1: np.int32, 2: np.float32},
             constants=("word_embedding", "position_embedding", "segment_embedding", "gamma",
                        "beta"), **attrs)

    embed("ms_embed_layer_norm")
    embed("ms_embed_layer_norm_no_segment_no_mask", segments=False, mask=False, epsilon=1e-5)
    embed("ms_embed_layer_norm_sum", outputs=("output", "mask_index", "embedding_sum"),
          epsilon=1e-3)
    embed("ms_embed_layer_norm_position_ids",
          positions=np.array([[3, 1, 0, 7], [2, 2, 5, 6]], np.int32))
    embed("ms_embed_layer_norm_shared_position_ids", positions=np.array([[4, 5, 6, 7]], np.int32))
