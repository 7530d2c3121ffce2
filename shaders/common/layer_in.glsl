// The layer of a layered full-viewport pass, from common/layered_triangle.vert.glsl (which writes
// gl_Layer itself under TOMO_VS_LAYER) or from common/layered_triangle.geom.glsl otherwise.
#ifdef TOMO_VS_LAYER
flat in int v_layer;
#define LAYER v_layer
#else
flat in int g_layer;
#define LAYER g_layer
#endif
