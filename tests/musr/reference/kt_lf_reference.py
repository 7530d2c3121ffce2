#!/usr/bin/env python3
"""Independent reference values of the longitudinal-field Kubo-Toyabe functions, printed for
tests/musr/theory_kt_lf_test.cpp (pure Python, no dependencies; run: python3 kt_lf_reference.py).

- static Gaussian KT in field: the powder average over a Gaussian local field plus the applied
  field, E[(Bz^2 + Bperp^2 cos(gamma |B| t)) / |B|^2], as a 2-D Gauss-Legendre quadrature (no
  closed formula involved), and the closed form with its integral by Gauss-Legendre;
- static Lorentzian KT in field: the closed form with its integral by Gauss-Legendre;
- dynamic Gaussian/Lorentzian KT in field: the strong-collision Volterra equation
  G = p + nu * (p conv G), p = static * exp(-nu t), by trapezoids at steps h and h/2 and
  Richardson extrapolation, with the static function from the closed form above.
Frequencies in MHz, rates in 1/us, times in us.
"""
import math

def gauss_legendre(n):
    """Nodes and weights on [-1, 1] by Newton iteration on P_n."""
    xs, ws = [], []
    for i in range(1, n + 1):
        x = math.cos(math.pi * (i - 0.25) / (n + 0.5))
        for _ in range(100):
            p0, p1 = 1.0, x
            for k in range(2, n + 1):
                p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
            dp = n * (x * p1 - p0) / (x * x - 1.0)
            dx = p1 / dp
            x -= dx
            if abs(dx) < 1e-16:
                break
        xs.append(x)
        ws.append(2.0 / ((1.0 - x * x) * dp * dp))
    return xs, ws

GX, GW = gauss_legendre(20)

def integrate(f, a, b, pieces=200):
    s, h = 0.0, (b - a) / pieces
    for k in range(pieces):
        c = a + (k + 0.5) * h
        for x, w in zip(GX, GW):
            s += w * 0.5 * h * f(c + 0.5 * h * x)
    return s

def static_gauss_lf(nu0, delta, t):
    w = 2 * math.pi * nu0
    integral = integrate(lambda s: math.exp(-0.5 * (delta * s) ** 2) * math.sin(w * s), 0.0, t)
    return (1 - 2 * (delta / w) ** 2 * (1 - math.exp(-0.5 * (delta * t) ** 2) * math.cos(w * t))
            + 2 * delta ** 4 / w ** 3 * integral)

def powder_gauss_lf(nu0, delta, t):
    """E over b ~ N(0, delta^2 I) (in angular-frequency units) of the longitudinal polarisation."""
    w0 = 2 * math.pi * nu0
    def over_bz(bz):
        def over_bp(bp):
            z = w0 + bz
            r2 = z * z + bp * bp
            if r2 == 0.0:
                return 1.0
            return (z * z + bp * bp * math.cos(math.sqrt(r2) * t)) / r2 * bp / delta ** 2 * math.exp(-0.5 * (bp / delta) ** 2)
        return integrate(over_bp, 0.0, 9 * delta, 60) * math.exp(-0.5 * (bz / delta) ** 2) / (math.sqrt(2 * math.pi) * delta)
    return integrate(over_bz, -9 * delta, 9 * delta, 60)

def static_lorentz_lf(nu0, a, t):
    w = 2 * math.pi * nu0
    def j(x):
        if abs(x) < 1e-8:
            return 1.0, x / 3.0
        return math.sin(x) / x, (math.sin(x) - x * math.cos(x)) / (x * x)
    j0, j1 = j(w * t)
    integral = integrate(lambda s: math.exp(-a * s) * j(w * s)[0], 0.0, t)
    r = a / w
    return 1 - r * j1 * math.exp(-a * t) - r * r * (j0 * math.exp(-a * t) - 1) - a * (1 + r * r) * integral

def volterra(static, nu, tmax, n):
    h = tmax / n
    p = [static(i * h) * math.exp(-nu * i * h) for i in range(n + 1)]
    g = [p[0]]
    for i in range(1, n + 1):
        conv = 0.5 * p[i] * g[0] + sum(p[i - j] * g[j] for j in range(1, i))
        g.append((p[i] + nu * h * conv) / (1 - 0.5 * nu * h * p[0]))
    return g

def dynamic(static_fn, nu0, rate, nu, times, tmax=4.0, n=800):
    # static values on the finest grid first (they dominate the cost)
    fine = {}
    def static(t):
        key = round(t, 12)
        if key not in fine:
            fine[key] = static_fn(nu0, rate, t) if t > 0 else 1.0
        return fine[key]
    g1 = volterra(static, nu, tmax, n)
    g2 = volterra(static, nu, tmax, 2 * n)
    out = []
    for t in times:
        i = round(t / tmax * n)
        out.append((4 * g2[2 * i] - g1[i]) / 3)
    return out

if __name__ == "__main__":
    for nu0, delta, t in [(0.5, 1.0, 0.7), (0.5, 1.0, 2.5), (2.0, 1.0, 1.3), (0.1, 0.5, 3.0)]:
        print(f"statGssKTLF nu0={nu0} delta={delta} t={t}: closed {static_gauss_lf(nu0, delta, t):.10f}"
              f" powder {powder_gauss_lf(nu0, delta, t):.10f}")
    for nu0, a, t in [(0.5, 1.0, 0.7), (0.5, 1.0, 2.5), (2.0, 1.0, 1.3), (0.1, 0.5, 3.0)]:
        print(f"statExpKTLF nu0={nu0} a={a} t={t}: {static_lorentz_lf(nu0, a, t):.10f}")
    times = [0.5, 1.0, 2.0, 3.0]
    for nu0, delta, nu in [(0.5, 1.0, 0.5), (0.1, 0.5, 0.2)]:
        vals = dynamic(static_gauss_lf, nu0, delta, nu, times)
        print(f"dynGssKTLF nu0={nu0} delta={delta} nu={nu}: " + " ".join(f"t={t}:{v:.8f}" for t, v in zip(times, vals)))
    for nu0, a, nu in [(0.5, 1.0, 0.5), (0.1, 0.5, 0.2)]:
        vals = dynamic(static_lorentz_lf, nu0, a, nu, times)
        print(f"dynExpKTLF nu0={nu0} a={a} nu={nu}: " + " ".join(f"t={t}:{v:.8f}" for t, v in zip(times, vals)))
    # Dawson's integral F(x) = int_0^x exp(s^2 - x^2) ds (skewedGss): the quadrature up to x = 5,
    # beyond it the asymptotic series 1/(2x) sum (2k-1)!!/(2x^2)^k in exact rational arithmetic
    # (the quadrature's rounding reaches 1e-13 there).
    from fractions import Fraction
    for x in [0.1, 0.5, 1.0, 2.0, 5.0]:
        print(f"dawson x={x}: {integrate(lambda s: math.exp(s * s - x * x), 0.0, x, 400):.16e}")
    for x in [10, 30]:
        total, term = Fraction(0), Fraction(1, 2 * x)
        for k in range(40):
            total += term
            term *= Fraction(2 * k + 1, 2 * x * x)
        print(f"dawson x={x}: {float(total):.16e}")
